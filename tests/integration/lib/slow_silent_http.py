"""slow_silent_http.py SLOW_PORT SILENT_PORT DELAY — two of http_servers.sh's
servers: on SLOW_PORT an HTTP/1.1 server that answers every GET after
DELAY seconds (but /linger at once, keeping the connection open though
the client asked to close it, as a server that ignores the header does),
on SILENT_PORT a socket that accepts connections and never reads them
(the kernel completes the handshakes).  Runs until killed.
"""
import socket, sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
slow_port, silent_port, delay = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
silent = socket.socket()
silent.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
silent.bind(("127.0.0.1", silent_port))
silent.listen(1024)          # the kernel accepts; nobody ever reads
class Slow(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_GET(self):
        linger = self.path == "/linger"
        if not linger:
            time.sleep(delay)
        body = b"slow\n"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        if linger:
            self.close_connection = False
    def log_message(self, *a):
        pass
ThreadingHTTPServer.daemon_threads = True
ThreadingHTTPServer.request_queue_size = 1024
ThreadingHTTPServer(("127.0.0.1", slow_port), Slow).serve_forever()
