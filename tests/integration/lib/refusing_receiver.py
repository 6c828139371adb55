"""refusing_receiver.py LOG — for remote_write.sh: a remote-write receiver that
refuses every POST with 400 and a body of over 400 bytes (the daemon must
cut it in its message), writing each request's Content-Encoding,
X-Prometheus-Remote-Write-Version, User-Agent, Content-Type and
Authorization headers to LOG, one line each.  Prints its port (the
kernel's pick) and runs until killed.
"""
import http.server, sys
count = open(sys.argv[1], "a")
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        count.write("%s %s %s %s %s\n" % (self.headers.get("Content-Encoding"),
                                    self.headers.get("X-Prometheus-Remote-Write-Version"),
                                    self.headers.get("User-Agent"),
                                    self.headers.get("Content-Type"),
                                    self.headers.get("Authorization")))
        count.flush()
        body = b"out of bounds: sample too old " + b"x" * 400 + b" END-OF-BODY"
        self.send_response(400)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a): pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
print(s.server_address[1], flush=True)
s.serve_forever()
