#!/usr/bin/env python3
# A stand-in for Elasticsearch's document API, for the jobcomp/http tests:
# every POST/PUT is appended to LOG as one JSON line {method, path, auth,
# body} and answered 201.  --hang: accept and never answer.  The bound port
# goes to --port-file once listening; --port reuses a port.
import argparse
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ap = argparse.ArgumentParser()
ap.add_argument("--log", required=True)
ap.add_argument("--port", type=int, default=0)
ap.add_argument("--port-file")
ap.add_argument("--hang", action="store_true")
args = ap.parse_args()
lock = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    def store(self):
        n = int(self.headers.get("Content-Length", 0))
        body = self.rfile.read(n).decode()
        if args.hang:
            time.sleep(3600)
            return
        with lock, open(args.log, "a") as f:
            f.write(json.dumps({"method": self.command, "path": self.path,
                                "auth": self.headers.get("Authorization"),
                                "body": json.loads(body)}) + "\n")
        self.send_response(201)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(b'{"result":"created"}')

    do_POST = store
    do_PUT = store

    def log_message(self, *a):
        pass


ThreadingHTTPServer.allow_reuse_address = True
ThreadingHTTPServer.daemon_threads = True
srv = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
if args.port_file:
    with open(args.port_file + ".tmp", "w") as f:
        f.write("%d\n" % srv.server_address[1])
    import os
    os.rename(args.port_file + ".tmp", args.port_file)
sys.stdout.flush()
srv.serve_forever()
