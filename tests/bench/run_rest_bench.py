#!/usr/bin/env python3
"""REST vs gRPC latency of one image predict: p50/p99 of a single 224x224x3 float image sent to
MobileNetV2 on the real tensord, as JSON over REST ({"instances": [...]}, one keep-alive
http.client connection, the body text made once before timing) and as a TensorProto over gRPC
(PredictionService stub, the request made once). Client and server share the machine; requests
are sequential (concurrency 1), so the numbers are latency, not throughput. The two protocols
take turns in alternating blocks of requests (--rounds), so that a drift in the machine's speed
during the run weighs on both alike.

The model is tests/generated/mobilenet_v2 (`make models`, or
`python3 tests/models/generate.py --out tests/generated --only mobilenet_v2`).

  bazel build //server:tensord
  python3 tests/bench/run_rest_bench.py [--requests 200] [--label after] [--report]

--report writes the run as the row `--label` of tests/bench/REST_REPORT.md's table (replacing
a row with that label, keeping the others).
"""
import argparse
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

from run_bench import machine  # same directory

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TENSORD = os.path.join(ROOT, "bazel-bin", "server", "tensord")
MODEL_DIR = os.path.join(ROOT, "tests", "generated", "mobilenet_v2")
REPORT = os.path.join(ROOT, "tests", "bench", "REST_REPORT.md")
MODEL = "mobilenet_v2"

HEADER = """# REST vs gRPC: one MobileNetV2 image predict

Written by `tests/bench/run_rest_bench.py`: p50/p99 latency of predicting one 224x224x3 float32
image with MobileNetV2 (`tests/generated/mobilenet_v2`) on `bazel-bin/server/tensord`, one
request at a time from one client on the same machine. REST sends `{"instances": [...]}` JSON
over a keep-alive HTTP/1.1 connection (body text made once, before timing); gRPC sends the same
pixels as a packed TensorProto through the PredictionService stub (request made once). The two
take turns in alternating blocks of requests. Each row is one run of the script.

| run | machine | requests | REST body | REST p50 ms | REST p99 ms | gRPC p50 ms | gRPC p99 ms | REST p50 / gRPC p50 |
|---|---|---|---|---|---|---|---|---|
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_available(rest_port, proc, log_path, timeout=300):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc.poll() is not None:
            raise SystemExit("tensord exited; see %s" % log_path)
        try:
            conn = http.client.HTTPConnection("127.0.0.1", rest_port, timeout=5)
            conn.request("GET", "/v1/models/" + MODEL)
            reply = conn.getresponse()
            body = reply.read()
            conn.close()
            if reply.status == 200 and b"AVAILABLE" in body:
                return
        except OSError:
            pass
        time.sleep(0.2)
    raise SystemExit("tensord did not load %s; see %s" % (MODEL, log_path))


def percentiles(samples_s):
    ms = sorted(x * 1000.0 for x in samples_s)
    p99 = ms[min(len(ms) - 1, int(round(0.99 * (len(ms) - 1))))]
    return statistics.median(ms), p99


class RestClient:
    """One keep-alive http.client connection posting the same body."""

    def __init__(self, port, body):
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.body = body
        self.reply = None

    def __call__(self):
        self.conn.request("POST", "/v1/models/%s:predict" % MODEL, body=self.body,
                          headers={"Content-Type": "application/json"})
        reply = self.conn.getresponse()
        body = reply.read()
        if reply.status != 200:
            raise SystemExit("REST predict failed: %d %s" % (reply.status, body[:300]))
        self.reply = body

    def output(self):
        return np.array(json.loads(self.reply)["predictions"], np.float32).reshape(-1)


class GrpcClient:
    """The PredictionService stub sending the same request."""

    def __init__(self, port, alias, image):
        import grpc
        from tensorflow.core.framework import tensor_pb2, tensor_shape_pb2, types_pb2
        from tensorflow_serving.apis import predict_pb2, prediction_service_pb2_grpc

        self.request = predict_pb2.PredictRequest()
        self.request.model_spec.name = MODEL
        proto = tensor_pb2.TensorProto(
            dtype=types_pb2.DT_FLOAT,
            tensor_shape=tensor_shape_pb2.TensorShapeProto(
                dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=d) for d in image.shape]),
            tensor_content=image.tobytes())
        self.request.inputs[alias].CopyFrom(proto)
        self.channel = grpc.insecure_channel("127.0.0.1:%d" % port)
        self.stub = prediction_service_pb2_grpc.PredictionServiceStub(self.channel)
        self.reply = None

    def __call__(self):
        self.reply = self.stub.Predict(self.request, timeout=60)

    def output(self):
        out = next(iter(self.reply.outputs.values()))
        return np.frombuffer(out.tensor_content, np.float32)


def time_interleaved(clients, warmup, requests, rounds):
    """Latencies of each client, measured in `rounds` alternating blocks, so that a machine
    whose speed drifts during the run (shared cloud CPUs do) weighs on both alike."""
    for client in clients:
        for _ in range(warmup):
            client()
    samples = [[] for _ in clients]
    per_round = max(1, requests // rounds)
    for _ in range(rounds):
        for client, out in zip(clients, samples):
            for _ in range(per_round):
                start = time.perf_counter()
                client()
                out.append(time.perf_counter() - start)
    return samples


def input_alias(rest_port):
    conn = http.client.HTTPConnection("127.0.0.1", rest_port, timeout=30)
    conn.request("GET", "/v1/models/%s/metadata" % MODEL)
    meta = json.loads(conn.getresponse().read())
    conn.close()
    inputs = meta["metadata"]["signature_def"]["signature_def"]["serving_default"]["inputs"]
    if len(inputs) != 1:
        raise SystemExit("expected one input, got %s" % sorted(inputs))
    return next(iter(inputs))


def update_report(label, row):
    text = open(REPORT).read() if os.path.exists(REPORT) else HEADER
    lines = text.rstrip("\n").split("\n")
    cell = "| %s |" % label
    lines = [l for l in lines if not l.startswith(cell)]
    # Rows go at the end of the runs table (the first one); kept in the order they were written.
    end = next(i for i, l in enumerate(lines) if l.startswith("| run |"))
    while end < len(lines) and lines[end].startswith("|"):
        end += 1
    lines.insert(end, row)
    with open(REPORT, "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tensord", default=TENSORD)
    parser.add_argument("--model_dir", default=MODEL_DIR)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=10,
                        help="alternating blocks of REST and gRPC requests")
    parser.add_argument("--label", default="run")
    parser.add_argument("--report", action="store_true", help="write the row to " + REPORT)
    args = parser.parse_args()
    if not os.path.isdir(args.model_dir):
        raise SystemExit("no model at %s: run `make models`" % args.model_dir)

    image = np.random.RandomState(0).uniform(-1.0, 1.0, (1, 224, 224, 3)).astype(np.float32)
    body = json.dumps({"instances": image.tolist()}).encode()

    grpc_port, rest_port = free_port(), free_port()
    with tempfile.TemporaryDirectory() as tmp:
        log_path = os.path.join(tmp, "tensord.log")
        with open(log_path, "w") as log:
            proc = subprocess.Popen(
                [args.tensord, "--port=%d" % grpc_port, "--rest_api_port=%d" % rest_port,
                 "--model_name=" + MODEL, "--model_base_path=" + os.path.abspath(args.model_dir)],
                stdout=log, stderr=subprocess.STDOUT)
            try:
                wait_available(rest_port, proc, log_path)
                alias = input_alias(rest_port)
                rest_client = RestClient(rest_port, body)
                grpc_client = GrpcClient(grpc_port, alias, image)
                rest, grpc_s = time_interleaved([rest_client, grpc_client], args.warmup,
                                                args.requests, args.rounds)
                rest_out, grpc_out = rest_client.output(), grpc_client.output()
            finally:
                proc.terminate()
                proc.wait(timeout=60)
    if not np.allclose(rest_out, grpc_out, rtol=1e-5, atol=1e-6):
        raise SystemExit("REST and gRPC predictions differ (max |diff| %g)"
                         % np.max(np.abs(rest_out - grpc_out)))

    rest_p50, rest_p99 = percentiles(rest)
    grpc_p50, grpc_p99 = percentiles(grpc_s)
    cpu = machine()
    row = "| %s | %s | %d | %.2f MB | %.2f | %.2f | %.2f | %.2f | %.2f |" % (
        args.label, cpu, len(rest), len(body) / 1e6, rest_p50, rest_p99, grpc_p50, grpc_p99,
        rest_p50 / grpc_p50)
    print("machine: %s" % cpu)
    print("REST body %.2f MB; REST p50 %.2f ms p99 %.2f ms; gRPC p50 %.2f ms p99 %.2f ms; "
          "REST/gRPC p50 %.2f" % (len(body) / 1e6, rest_p50, rest_p99, grpc_p50, grpc_p99,
                                  rest_p50 / grpc_p50))
    if args.report:
        update_report(args.label, row)
        print("wrote " + REPORT)


if __name__ == "__main__":
    sys.exit(main())
