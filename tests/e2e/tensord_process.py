"""Shared pieces of the end-to-end tests: paths, free ports, and the real tensord process.

Tests import from here so that starting, waiting for and stopping the daemon is written once.
"""
import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request

import grpc
import pytest
from tensorflow.core.example import example_pb2
from tensorflow_serving.apis import (classification_pb2, get_model_status_pb2,
                                     model_service_pb2_grpc, prediction_service_pb2_grpc,
                                     regression_pb2)
from tensorflow_serving.config import model_server_config_pb2

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARY = os.path.join(REPO, "bazel-bin", "server", "tensord")
MLP_BASE = os.path.join(REPO, "tests", "testdata", "keras_mlp")
MLP_GOLDEN = os.path.join(MLP_BASE, "golden")
SHARED = os.environ.get("TENSORD_SHARED_DIR", os.path.join(os.path.dirname(REPO), "shared"))
TFS_TESTDATA = os.path.join(SHARED, "testdata", "tfserving", "servables", "tensorflow", "testdata")
HAVE_SHARED = os.path.isdir(TFS_TESTDATA)
needs_shared = pytest.mark.skipif(not HAVE_SHARED, reason="../shared (TF Serving testdata) absent")


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """tensord started with `flags` on a free gRPC port (and a free REST port with rest=True);
    ready once its channel connects (a TLS channel with `credentials`, grpc.ChannelCredentials).
    stop() sends SIGTERM (SIGKILL after 10 s) and returns the exit code."""

    def __init__(self, flags, log_dir, rest=False, credentials=None):
        if not os.path.exists(BINARY):
            pytest.fail("%s missing: run `bazel build //server:tensord` first" % BINARY)
        self.port = free_port()
        self.rest_port = free_port() if rest else 0
        self.rest_url = "http://127.0.0.1:%d" % self.rest_port
        if rest:
            flags = ["--rest_api_port=%d" % self.rest_port] + flags
        self.log_path = os.path.join(str(log_dir), "tensord_%d.log" % self.port)
        self._log = open(self.log_path, "w")
        # Bad test models fail for good; TF Serving's default retries (5 x 60 s) would only
        # stall startup. Tests of the retry flags pass their own values (the last one wins).
        self.proc = subprocess.Popen([BINARY, "--port=%d" % self.port,
                                      "--max_num_load_retries=0"] + flags,
                                     stdout=self._log, stderr=subprocess.STDOUT)
        target = "127.0.0.1:%d" % self.port
        self.channel = (grpc.secure_channel(target, credentials) if credentials is not None
                        else grpc.insecure_channel(target))
        try:
            grpc.channel_ready_future(self.channel).result(timeout=120)
        except grpc.FutureTimeoutError:
            self.stop()
            raise RuntimeError("tensord did not start: " + self.log())
        if rest and "--rest_api_ssl_config_file" not in " ".join(flags):
            # the REST listener starts just after the gRPC one
            for _ in range(100):
                try:
                    if self.http_get("/v2/health/live")[0] == 200:
                        break
                except OSError:
                    pass
                time.sleep(0.05)
        self.predict = prediction_service_pb2_grpc.PredictionServiceStub(self.channel)
        self.models = model_service_pb2_grpc.ModelServiceStub(self.channel)

    def log(self):
        with open(self.log_path) as f:
            return f.read()

    def http_get(self, path):
        """(status, body text) of a GET on the REST port."""
        try:
            with urllib.request.urlopen(self.rest_url + path, timeout=30) as reply:
                return reply.status, reply.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode()

    def version_states(self, model):
        """{version: ModelVersionStatus.State} of `model`, from GetModelStatus."""
        req = get_model_status_pb2.GetModelStatusRequest()
        req.model_spec.name = model
        reply = self.models.GetModelStatus(req, timeout=30)
        return {s.version: s.state for s in reply.model_version_status}

    def stop(self):
        self.channel.close()
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._log.close()
        return self.proc.returncode


def model_config_text(models):
    """Text ModelServerConfig serving each (name, base_path) of `models`."""
    body = "".join("  config { name: '%s' base_path: '%s' model_platform: 'tensorflow' }\n"
                   % (name, base) for name, base in models)
    return "model_config_list {\n" + body + "}\n"


def model_config_proto(models):
    """The same as a ModelServerConfig message (for HandleReloadConfigRequest)."""
    config = model_server_config_pb2.ModelServerConfig()
    for name, base in models:
        c = config.model_config_list.config.add()
        c.name, c.base_path, c.model_platform = name, base, "tensorflow"
    return config


def example_proto(features):
    """The tf.Example TF Serving's REST API makes of a JSON object, built with the official
    protos: float -> float_list, bool and int -> int64_list (1/0 for bools), str -> bytes_list."""
    ex = example_pb2.Example()
    for key, value in features.items():
        feature = ex.features.feature[key]
        for v in value if isinstance(value, list) else [value]:
            if isinstance(v, float):
                feature.float_list.value.append(v)
            elif isinstance(v, int):
                feature.int64_list.value.append(int(v))
            else:
                feature.bytes_list.value.append(v.encode())
    return ex


def official_classify_regress(srv, method, model, signature, examples, context=None, label=None):
    """The official client's Classify/Regress for the same request, as REST's "results"."""
    request_type, rpc = {
        "classify": (classification_pb2.ClassificationRequest, srv.predict.Classify),
        "regress": (regression_pb2.RegressionRequest, srv.predict.Regress)}[method]
    req = request_type()
    req.model_spec.name = model
    req.model_spec.signature_name = signature
    if label:
        req.model_spec.version_label = label
    if context is None:
        req.input.example_list.examples.extend(example_proto(e) for e in examples)
    else:
        req.input.example_list_with_context.context.CopyFrom(example_proto(context))
        req.input.example_list_with_context.examples.extend(example_proto(e) for e in examples)
    resp = rpc(req, timeout=60)
    if method == "classify":
        return [[[c.label, c.score] for c in cl.classes]
                for cl in resp.result.classifications]
    return [r.value for r in resp.result.regressions]
