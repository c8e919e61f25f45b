# Appended to the reference: format_dice tries to phone home (a local listener the test
# watches, a public DNS server, a name lookup) and returns what it found.
import socket


def format_dice(dice):
    results = []
    for host, port in (("127.0.0.1", @PORT@), ("8.8.8.8", 53), ("1.1.1.1", 443)):
        try:
            with socket.create_connection((host, port), timeout=0.3) as s:
                s.sendall(b"stolen dice " + str(dice).encode())
            results.append(f"{host}:{port} connected")
        except OSError as err:
            results.append(f"{host}:{port} {type(err).__name__}")
    try:
        socket.getaddrinfo("example.com", 80)
        results.append("dns ok")
    except OSError as err:
        results.append(f"dns {type(err).__name__}")
    return "; ".join(results)
