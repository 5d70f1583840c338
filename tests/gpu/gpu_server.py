"""Starts the packed tensord on the GPU machine for tests/gpu's checks: the given test models
of tests/testdata, each with device_policy "gpu", on free loopback ports."""
import os
import socket
import subprocess
import time
import urllib.request

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TESTDATA = os.path.join(REPO, "tests", "testdata")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class GpuServer:
    def __init__(self, tensord, models, workdir, ready_timeout_s=60):
        self.models = list(models)
        config = os.path.join(workdir, "models.config")
        with open(config, "w") as f:
            f.write("model_config_list {\n")
            for model in self.models:
                f.write('  config { name: "%s" base_path: "%s" model_platform: "tensorflow" '
                        'device_policy: "gpu" }\n' % (model, os.path.join(TESTDATA, model)))
            f.write("}\n")
        self.grpc_port, self.rest_port = free_port(), free_port()
        self.log_path = os.path.join(workdir, "tensord.log")
        with open(self.log_path, "w") as log:
            self.proc = subprocess.Popen(
                [tensord, "--port=%d" % self.grpc_port, "--rest_api_port=%d" % self.rest_port,
                 "--model_config_file=" + config], stdout=log, stderr=subprocess.STDOUT)
        deadline = time.time() + ready_timeout_s
        while not self._ready():
            if self.proc.poll() is not None or time.time() > deadline:
                self.stop()
                raise RuntimeError("tensord did not become ready:\n" + self.log())
            time.sleep(0.5)

    def _ready(self):
        try:
            return all(urllib.request.urlopen(self.rest_url("/v1/models/" + m), timeout=2).status
                       == 200 for m in self.models)
        except OSError:
            return False

    def rest_url(self, path):
        return "http://127.0.0.1:%d%s" % (self.rest_port, path)

    def log(self):
        with open(self.log_path) as f:
            return f.read()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=30)
