# Markup and template syntax in what the instructor's HTML pages show: an exception message with a
# script, an event handler, a closing </pre>/</textarea>, Jinja2 syntax and a javascript: link,
# and a returned string with the same.  The report and feedback pages escape it (autoescape): no
# live tag, no template evaluated.


_PAYLOAD = ('</pre></textarea></details><script>alert("round5")</script><img src=x onerror=alert(5)>'
            '{{ 7*7 }}{% raw %}<a href="javascript:alert(5)">x</a>')


def score_chance(dice):
    raise ValueError(_PAYLOAD)


def normalize_name(text):
    return _PAYLOAD
