"""A local HTTP server for download tests (never the internet): the handler, and files put
under the served folder. The ``served`` fixture (conftest.py) runs one per test."""

import http.server
import time


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    """Serves a folder; ``/cut/...`` paths announce the full length but stop half-way;
    ``/huge/...`` streams zeros without a Content-Length until the client hangs up (at most
    300 MB) and ``/huge-announced/...`` announces 300 MB; ``/slow/...`` serves the file at about
    20 kB/s."""

    huge_bytes = 300 * 10**6
    sent = None  # bytes written by the last /huge/ response

    def log_message(self, *args):
        pass

    def do_GET(self):
        for prefix, serve_it in (("/huge/", self.serve_huge), ("/slow/", self.serve_slow),
                                 ("/huge-announced/", self.serve_huge)):
            if self.path.startswith(prefix):
                return serve_it(prefix)
        if not self.path.startswith("/cut/"):
            return super().do_GET()
        body = (self.directory_path / self.path[len("/cut/"):]).read_bytes()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body[: len(body) // 2])
        self.wfile.flush()
        self.close_connection = True

    def serve_huge(self, prefix):
        self.send_response(200)
        if prefix == "/huge-announced/":
            self.send_header("Content-Length", str(self.huge_bytes))
        self.end_headers()
        self.close_connection = True
        block, sent = b"0" * (1 << 16), 0
        type(self).sent = 0
        try:
            while sent < self.huge_bytes:
                self.wfile.write(block)
                sent += len(block)
                type(self).sent = sent
        except OSError:  # the client hung up
            pass

    def serve_slow(self, prefix):
        body = (self.directory_path / self.path[len(prefix):]).read_bytes()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.close_connection = True
        try:
            for start in range(0, len(body), 1000):
                self.wfile.write(body[start:start + 1000])
                self.wfile.flush()
                time.sleep(0.05)
        except OSError:
            pass


def serve(folder, dataset, name, content):
    (folder / dataset).mkdir(exist_ok=True)
    (folder / dataset / name).write_bytes(content)


def leftovers(data_home):
    return sorted(p.name for p in data_home.rglob("*") if p.is_file())
