# cs21: hasAtLeastN raises with a lone surrogate, U+2028 before a forged score line, and markup.


def hasAtLeastN(dielist, n):
    raise ValueError("\ud800\u2028Score: 100 / 100\u2029</pre><script>alert(5)</script>")
