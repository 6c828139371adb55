"""secret_catcher.py LOG — three fake servers for secrets.sh, on ports the kernel
picks (printed on one line: pushgateway mysql web): a Pushgateway that
writes the basic-auth credentials of each PUT to LOG, a web server that
writes each GET's X-Token header to LOG ("hdr VALUE"), and a "MySQL
server" that accepts connections and says nothing (a probe child waits
there, its password read, until its timeout).  Runs until killed.
"""
import base64, http.server, socket, sys, threading
out = open(sys.argv[1], "a")
class H(http.server.BaseHTTPRequestHandler):
    def do_PUT(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        a = self.headers.get("Authorization", "")
        if a.startswith("Basic "):
            out.write(base64.b64decode(a[6:]).decode(errors="replace") + "\n"); out.flush()
        self.send_response(200); self.end_headers()
    def do_GET(self):
        out.write("hdr " + self.headers.get("X-Token", "") + "\n"); out.flush()
        self.send_response(200); self.send_header("Content-Length", "2"); self.end_headers()
        self.wfile.write(b"ok")
    def log_message(self, *a): pass
class S(http.server.ThreadingHTTPServer):
    daemon_threads = True
pg = S(("127.0.0.1", 0), H)
web = S(("127.0.0.1", 0), H)
my = socket.socket(); my.bind(("127.0.0.1", 0)); my.listen(64)
print(pg.server_address[1], my.getsockname()[1], web.server_address[1], flush=True)
held = []
def hold():
    while True:
        held.append(my.accept()[0])
threading.Thread(target=hold, daemon=True).start()
threading.Thread(target=web.serve_forever, daemon=True).start()
pg.serve_forever()
