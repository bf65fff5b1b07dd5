from http.server import HTTPServer, SimpleHTTPRequestHandler

import settings


def serve():
    HTTPServer(("127.0.0.1", settings.port()), SimpleHTTPRequestHandler).serve_forever()
