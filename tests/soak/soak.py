#!/usr/bin/env python3
"""Soak test of the real tensord binary under faults (issue 16).

tensord serves copies of committed test models (tests/testdata). A closed-loop ramp finds the
request rate at which it saturates; then about twice that rate is offered open-loop (Poisson
arrivals) over gRPC, with the official tensorflow_serving client, and REST, while a fault thread
swaps versions, drops corrupt versions into a model directory, rewrites the model config and
calls ReloadConfig, and sends malformed requests. The run ends with SIGTERM while a slow model
load and requests are in flight. Every answer is compared with the model's TensorFlow golden
(tests/testdata/<model>/golden).

    python3 tests/soak/soak.py --seconds 600 --out tests/soak/SOAK_REPORT.md
    python3 tests/soak/soak.py --ci --json /tmp/soak.json      # under two minutes, for CI

Outcomes of a well-formed request: OK (then checked against the golden), or shed by admission
control (RESOURCE_EXHAUSTED / HTTP 429). Anything else before SIGTERM fails the run; requests are
never pinned to a version, so a failure at a version swap shows up here. At SIGTERM, a request
the client had sent before the signal is "in flight" and must still end OK or shed, or, on REST,
with tensord's 503 for a request it read after the drain began (refused, never run); any other
ending (a gRPC error, a reset or refused connection, a deadline, no answer) counts as lost.
Requests sent after the signal may also be refused (UNAVAILABLE, 503, connection refused or
reset).

Exit status 0 when every pass criterion holds, 1 otherwise; the report says which failed.
"""
import argparse
import fcntl
import os
import shutil
import socket
import struct
import subprocess
import sys

_NETNS_ENV = "TENSORD_SOAK_NETNS"


def _loopback_up():
    """Brings up `lo` in a fresh network namespace (SIOCGIFFLAGS / SIOCSIFFLAGS)."""
    siocgifflags, siocsifflags, iff_up = 0x8913, 0x8914, 0x1
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        ifreq = fcntl.ioctl(s, siocgifflags, struct.pack("16sH22x", b"lo", 0))
        flags = struct.unpack("16sH22x", ifreq)[1]
        fcntl.ioctl(s, siocsifflags, struct.pack("16sH22x", b"lo", flags | iff_up))


def _private_network():
    """Re-runs this script in a user + network namespace of its own, where only loopback exists:
    tensord listens on 0.0.0.0 (it has no bind-address flag), and a soak should not expose it.
    Returns the network the run uses, for the report; stays on the host network where the
    system does not allow namespaces (e.g. a container's seccomp profile)."""
    if os.environ.get(_NETNS_ENV) == "1":
        _loopback_up()
        return "private network namespace (loopback only)"
    if "--host_network" not in sys.argv and shutil.which("unshare"):
        cmd = ["unshare", "--user", "--map-root-user", "--net"]
        if subprocess.run(cmd + ["true"], capture_output=True).returncode == 0:
            os.environ[_NETNS_ENV] = "1"
            os.execvp("unshare", cmd + [sys.executable] + sys.argv)
    return "host network: tensord listened on 0.0.0.0 (clients used 127.0.0.1 only)"


if __name__ == "__main__":
    # Before the imports below: they take TensorFlow's import time, which a re-run pays again.
    NETWORK = _private_network()

import array  # noqa: E402
import collections  # noqa: E402
import datetime  # noqa: E402
import http.client  # noqa: E402
import json  # noqa: E402
import queue  # noqa: E402
import random  # noqa: E402
import re  # noqa: E402
import signal  # noqa: E402
import tempfile  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
import traceback  # noqa: E402

import grpc  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from google.protobuf import text_format  # noqa: E402
from tensorflow_serving.apis import (get_model_status_pb2, model_management_pb2,  # noqa: E402
                                     model_service_pb2_grpc, predict_pb2, prediction_log_pb2,
                                     prediction_service_pb2_grpc)
from tensorflow_serving.config import model_server_config_pb2  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARY = os.path.join(REPO, "bazel-bin", "server", "tensord")
TESTDATA = os.path.join(REPO, "tests", "testdata")

# Served name -> the committed model it copies. The clients load these three; mlp and cnn are
# swapped on the file system (policy latest 1), cnn also gets corrupt versions, linear (int64
# and string outputs besides floats) is swapped by rewriting its `specific` versions in the
# config. `extra` is added and removed by ReloadConfig.
LOAD_MODELS = (("mlp", "keras_mlp"), ("linear", "tf1_linear"), ("cnn", "cnn_small"))
EXTRA_MODEL = ("extra", "keras_mlp")

LOADING, AVAILABLE, END = 20, 30, 50
# Shed by admission control (gRPC, HTTP 429) or by a full REST request queue (HTTP 503 naming
# it, told apart from the drain's 503).
REST_QUEUE_FULL = "http:503 queue full"
SHED = ("grpc:RESOURCE_EXHAUSTED", "http:429", REST_QUEUE_FULL)
# A REST request the client sent before SIGTERM but tensord read after its drain began gets 503
# with tensord's JSON error: refused, never run, safe to retry. gRPC has no such case: tensord
# accepts calls for 200 ms after SIGTERM and gRPC's shutdown lets every accepted call finish.
DRAIN_REFUSAL = ("http:503",)
# Endings of a request sent after SIGTERM that are a clean refusal by a draining or exited server.
# CANCELLED: a call accepted in the 200 ms after SIGTERM and still waiting (e.g. in an admission
# queue) when gRPC's shutdown deadline (--drain_timeout_seconds) cancels what is left.
REFUSED_AFTER_SIGTERM = ("grpc:UNAVAILABLE", "grpc:CANCELLED", "http:503",
                         "conn:ConnectionRefusedError", "conn:ConnectionResetError",
                         "conn:RemoteDisconnected", "conn:BrokenPipeError")
REQUEST_TIMEOUT_S = 30
# tcmalloc returns freed pages to the system at once, so that RSS follows the memory tensord
# holds rather than its allocator's cache of the last peak of request buffers (which moved
# quiet readings by +-20% between fault cycles). A leak is memory held either way.
SERVER_ENV = {"TCMALLOC_AGGRESSIVE_DECOMMIT": "true"}
# tensord exits at most 3 s after the drain timeout whatever still runs; 2 s more for the OS.
EXIT_SLACK_S = 5
RSS_GROWTH_LIMIT = 0.05
# Each lane's requests sent but not answered; an arrival beyond it is not sent ("client cap").
LANE_CAP = 64
# REST is open loop too: a connection for every request a lane may have outstanding. With
# fewer, arrivals wait in the client once tensord is saturated, and less than the target is sent.
REST_WORKERS_PER_LANE = LANE_CAP


# ---------------------------------------------------------------------------------------------
# Goldens

def _mismatch(got, want, rtol, atol, exact_dtype):
    """Why `got` is not TensorFlow's `want`, or None. Floats within rtol/atol, the rest exactly;
    REST's JSON carries no dtype, so only its kind is checked there (exact_dtype=False)."""
    if got.shape != want.shape:
        return "shape %s, want %s" % (got.shape, want.shape)
    if want.dtype.kind == "S":
        values = [v if isinstance(v, bytes) else str(v).encode() for v in got.ravel().tolist()]
        return None if values == want.ravel().tolist() else "strings %r, want %r" % (
            values[:4], want.ravel().tolist()[:4])
    if exact_dtype and got.dtype != want.dtype:
        return "dtype %s, want %s" % (got.dtype, want.dtype)
    if want.dtype.kind == "f":
        if got.dtype.kind == "f" and np.allclose(got, want, rtol=rtol, atol=atol):
            return None
        return "max |diff| %s" % np.max(np.abs(got.astype(np.float64) - want))
    if got.dtype.kind != want.dtype.kind or not np.array_equal(got, want):
        return "values %s, want %s" % (got.ravel()[:4].tolist(), want.ravel()[:4].tolist())
    return None


class Case:
    """One serving_default golden case: the request in both protocols and TensorFlow's outputs."""

    def __init__(self, model, inputs, outputs, rtol, atol):
        self.model, self.inputs, self.outputs = model, inputs, outputs
        self.rtol, self.atol = rtol, atol
        self.grpc = self.grpc_request(model)
        # float32 values widen to doubles exactly, so the JSON carries the golden inputs exactly.
        self.rest_body = json.dumps({"inputs": {a: v.tolist() for a, v in inputs.items()}}).encode()

    def grpc_request(self, name):
        req = predict_pb2.PredictRequest()
        req.model_spec.name = name
        for alias, value in self.inputs.items():
            req.inputs[alias].CopyFrom(tf.make_tensor_proto(value))
        return req

    def _check(self, got, exact_dtype):
        if sorted(got) != sorted(self.outputs):
            return "outputs %s, want %s" % (sorted(got), sorted(self.outputs))
        for alias, want in sorted(self.outputs.items()):
            problem = _mismatch(got[alias], want, self.rtol, self.atol, exact_dtype)
            if problem:
                return "%s: %s" % (alias, problem)
        return None

    # An answer the checks cannot read is a wrong answer, never an exception that would leave
    # the request unaccounted for.

    def check_grpc(self, response):
        try:
            got = {a: tf.make_ndarray(t) for a, t in response.outputs.items()}
        except Exception as e:
            return "unreadable answer: %r" % e
        return self._check(got, True)

    def check_rest(self, body):
        try:
            outputs = json.loads(body)["outputs"]
            if len(self.outputs) == 1:  # the columnar format names no output when there is one
                outputs = {next(iter(self.outputs)): outputs}
            got = {a: np.array(v) for a, v in outputs.items()}
        except Exception as e:
            return "unreadable answer (%r): %r" % (e, body[:120])
        return self._check(got, False)


def load_cases(model, testdata, rows=1):
    """The model's serving_default golden cases, each repeated along the batch dimension to at
    least `rows` rows: inputs and TensorFlow's outputs alike, since a row's outputs depend on
    that row only in these models. Big batches make the server, not the Python client, the
    bottleneck."""
    golden = os.path.join(TESTDATA, testdata, "golden")
    with open(os.path.join(golden, "cases.json")) as f:
        spec = json.load(f)
    cases = []
    for case in spec["cases"]:
        if case["signature"] != "serving_default":
            continue
        inputs = {a: np.load(os.path.join(golden, n)) for a, n in case["inputs"].items()}
        outputs = {a: np.load(os.path.join(golden, n)) for a, n in case["outputs"].items()}
        batch = {v.shape[0] for v in list(inputs.values()) + list(outputs.values())}
        if len(batch) != 1:
            raise RuntimeError("%s: inputs and outputs share no batch dimension" % golden)
        repeat = -(-rows // batch.pop())
        inputs = {a: np.concatenate([v] * repeat) for a, v in inputs.items()}
        outputs = {a: np.concatenate([v] * repeat) for a, v in outputs.items()}
        cases.append(Case(model, inputs, outputs, case["rtol"], case["atol"]))
    if not cases:
        raise RuntimeError("%s has no serving_default golden case" % golden)
    return cases


# ---------------------------------------------------------------------------------------------
# The server

def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def config_text(entries):
    """Text ModelServerConfig of (name, base_path, version policy text or None) entries."""
    out = ["model_config_list {"]
    for name, base, policy in entries:
        out.append("  config {")
        out.append("    name: '%s'" % name)
        out.append("    base_path: '%s'" % base)
        out.append("    model_platform: 'tensorflow'")
        if policy:
            out.append("    model_version_policy { %s }" % policy)
        out.append("  }")
    out.append("}")
    return "\n".join(out) + "\n"


def model_entries(root, linear_version, extra):
    """The config's (name, base_path, policy) entries: the three load models, and `extra`."""
    base = os.path.join(root, "models")
    entries = [("mlp", os.path.join(base, "mlp"), "latest { num_versions: 1 }"),
               ("linear", os.path.join(base, "linear"),
                "specific { versions: %d }" % linear_version),
               ("cnn", os.path.join(base, "cnn"), "latest { num_versions: 1 }")]
    if extra:
        entries.append(("extra", os.path.join(base, "extra"), None))
    return entries


def write_config(path, entries):
    """Replaces the config file atomically (a reader never sees half of it); returns its text."""
    text = config_text(entries)
    with open(path + ".tmp", "w") as f:
        f.write(text)
    os.replace(path + ".tmp", path)
    return text


def split_cpus():
    """(tensord's CPUs, the client's), or None with fewer than two CPUs. The client is Python:
    one core is all it can use, and sharing cores with a saturated tensord starves its pacer,
    so that it cannot offer twice the saturation rate. It gets the last CPU to itself."""
    cpus = sorted(os.sched_getaffinity(0))
    return (set(cpus[:-1]), {cpus[-1]}) if len(cpus) >= 2 else None


class Tensord:
    def __init__(self, flags, log_path, cpus=None):
        self.port, self.rest_port = free_port(), free_port()
        self.log_path = log_path
        self._log = open(log_path, "w")
        self.proc = subprocess.Popen(
            [BINARY, "--port=%d" % self.port, "--rest_api_port=%d" % self.rest_port] + flags,
            stdout=self._log, stderr=subprocess.STDOUT, env=dict(os.environ, **SERVER_ENV),
            preexec_fn=(lambda: os.sched_setaffinity(0, cpus)) if cpus else None)
        self.channel = grpc.insecure_channel("127.0.0.1:%d" % self.port)
        try:
            grpc.channel_ready_future(self.channel).result(timeout=120)
        except grpc.FutureTimeoutError:
            self.close()
            raise RuntimeError("tensord did not start:\n" + self.log_tail())
        self.predict = prediction_service_pb2_grpc.PredictionServiceStub(self.channel)
        self.models = model_service_pb2_grpc.ModelServiceStub(self.channel)
        # The REST listener starts just after the gRPC one.
        deadline = time.monotonic() + 30
        while self.http("GET", "/v2/health/live")[0] != 200:
            if time.monotonic() > deadline:
                self.close()
                raise RuntimeError("tensord's REST API did not start:\n" + self.log_tail())
            time.sleep(0.05)

    def http(self, method, path, body=None):
        """(status, body bytes) of one request on a fresh connection; (None, error) if it failed."""
        conn = http.client.HTTPConnection("127.0.0.1", self.rest_port, timeout=REQUEST_TIMEOUT_S)
        try:
            conn.request(method, path, body, {"Content-Type": "application/json"})
            reply = conn.getresponse()
            return reply.status, reply.read()
        except (OSError, http.client.HTTPException) as e:
            return None, repr(e).encode()
        finally:
            conn.close()

    def status(self, model):
        """{version: (state, error code, error message)} from GetModelStatus; {} if unknown."""
        req = get_model_status_pb2.GetModelStatusRequest()
        req.model_spec.name = model
        try:
            reply = self.models.GetModelStatus(req, timeout=REQUEST_TIMEOUT_S)
        except grpc.RpcError as e:
            if e.code() == grpc.StatusCode.NOT_FOUND:
                return {}
            raise
        return {s.version: (s.state, s.status.error_code, s.status.error_message)
                for s in reply.model_version_status}

    def proc_status(self, field):
        """An integer field of /proc/<pid>/status (VmRSS in kB, Threads), None once exited."""
        try:
            with open("/proc/%d/status" % self.proc.pid) as f:
                for line in f:
                    if line.startswith(field + ":"):
                        return int(line.split()[1])
        except OSError:
            pass
        return None

    def rss_kb(self):
        return self.proc_status("VmRSS")

    def log_tail(self, lines=40):
        with open(self.log_path, errors="replace") as f:
            return "".join(f.readlines()[-lines:])

    def close(self):
        self.channel.close()
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self._log.close()


# ---------------------------------------------------------------------------------------------
# Request lanes: one per (protocol, model); requests never name a version.

class Stats:
    """Every request's ending, by phase and lane. Phases: ramp, soak (ended before SIGTERM),
    inflight (sent before SIGTERM, ended after), after (sent after SIGTERM)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.phase = "ramp"
        self.sigterm_at = None
        self.counts = collections.Counter()       # (phase, lane, ending) -> requests
        self.latency = collections.defaultdict(lambda: array.array("d"))  # soak OKs, by lane
        self.versions = collections.defaultdict(set)  # model -> versions that answered
        self.samples = collections.defaultdict(list)  # (phase, ending) -> first details
        self.not_sent = collections.Counter()     # lane -> arrivals over the lane's cap

    def record(self, lane, ending, detail, t_sched, t_sent, t_end):
        with self.lock:
            if self.phase == "ramp":
                phase = "ramp"
            elif self.sigterm_at is None or t_end < self.sigterm_at:
                phase = "soak"
            elif t_sent < self.sigterm_at:
                phase = "inflight"
            else:
                phase = "after"
            self.counts[(phase, lane, ending)] += 1
            if phase == "soak" and ending == "OK":
                self.latency[lane].append(t_end - t_sched)
            if ending != "OK" and len(self.samples[(phase, ending)]) < 5:
                if phase == "inflight":
                    detail = "%s (sent %.0f ms before SIGTERM, ended %.0f ms after)" % (
                        detail, 1000 * (self.sigterm_at - t_sent), 1000 * (t_end - self.sigterm_at))
                self.samples[(phase, ending)].append("%s: %s" % (lane, detail))

    def total(self, phase=None, lane=None, endings=None):
        with self.lock:
            return sum(n for (p, l, e), n in self.counts.items()
                       if (phase is None or p == phase) and (lane is None or l == lane)
                       and (endings is None or e in endings))


class GrpcLane:
    def __init__(self, server, model, cases, stats):
        self.name, self.model, self.cases, self.stats = "grpc/" + model, model, cases, stats
        self.channel = grpc.insecure_channel("127.0.0.1:%d" % server.port)
        self.stub = prediction_service_pb2_grpc.PredictionServiceStub(self.channel)

    def _judge(self, case, response):
        self.stats.versions[self.model].add(response.model_spec.version.value)
        problem = case.check_grpc(response)
        return ("WRONG", problem) if problem else ("OK", None)

    def call(self, case):
        try:
            response = self.stub.Predict(case.grpc, timeout=REQUEST_TIMEOUT_S)
        except grpc.RpcError as e:
            return "grpc:" + e.code().name, e.details()
        return self._judge(case, response)

    def start(self, case, done):
        """Sends without waiting; done(ending, detail) runs when the answer arrives."""
        def finished(future):
            error = future.exception()
            if error is not None:
                done("grpc:" + error.code().name, error.details())
            else:
                done(*self._judge(case, future.result()))
        self.stub.Predict.future(case.grpc, timeout=REQUEST_TIMEOUT_S).add_done_callback(finished)

    def close(self):
        self.channel.close()


class RestLane:
    def __init__(self, server, model, cases, stats):
        self.name, self.model, self.cases, self.stats = "rest/" + model, model, cases, stats
        self.port = server.rest_port
        self.path = "/v1/models/%s:predict" % model
        self.local = threading.local()  # a keep-alive connection per thread

    def call(self, case):
        conn = getattr(self.local, "conn", None)
        if conn is None:
            conn = self.local.conn = http.client.HTTPConnection(
                "127.0.0.1", self.port, timeout=REQUEST_TIMEOUT_S)
        try:
            conn.request("POST", self.path, case.rest_body, {"Content-Type": "application/json"})
            reply = conn.getresponse()
            body = reply.read()
        except (OSError, http.client.HTTPException) as e:
            conn.close()  # the next request reconnects
            return "conn:" + type(e).__name__, str(e)
        if reply.status != 200:
            detail = body[:200].decode(errors="replace")
            if reply.status == 503 and "Too many REST requests are waiting" in detail:
                return REST_QUEUE_FULL, detail
            return "http:%d" % reply.status, detail
        problem = case.check_rest(body)
        return ("WRONG", problem) if problem else ("OK", None)


class OpenLoop:
    """Poisson arrivals at `rate` per second over all lanes, round robin, each with a random
    golden case; gRPC sends asynchronously, REST through a pool of keep-alive connections per
    lane. Latency counts from the scheduled arrival, so time waiting in the client counts."""

    def __init__(self, lanes, rate, stats, rng):
        self.lanes, self.rate, self.stats, self.rng = lanes, rate, stats, rng
        self.stop_event = threading.Event()
        self.running = threading.Event()  # cleared while paused
        self.running.set()
        self.paused_seconds = 0.0
        self.lock = threading.Lock()
        self.outstanding = collections.Counter()
        self.sent = 0
        self.skipped = 0  # arrivals dropped when the client fell more than 1 s behind
        self.queues = {l.name: queue.Queue() for l in lanes if isinstance(l, RestLane)}
        self.threads = [threading.Thread(target=self._pace, name="pacer")]
        for lane in lanes:
            if isinstance(lane, RestLane):
                self.threads += [threading.Thread(target=self._rest_worker, args=(lane,))
                                 for _ in range(REST_WORKERS_PER_LANE)]

    def start(self):
        for t in self.threads:
            t.start()

    def _done(self, lane, t_sched, t_sent):
        def done(ending, detail):
            self.stats.record(lane.name, ending, detail, t_sched, t_sent, time.monotonic())
            with self.lock:
                self.outstanding[lane.name] -= 1
        return done

    def _pace(self):
        t_next = time.monotonic()
        i = 0
        while not self.stop_event.is_set():
            if not self.running.is_set():
                paused = time.monotonic()
                while not self.running.wait(0.05) and not self.stop_event.is_set():
                    pass
                self.paused_seconds += time.monotonic() - paused
                t_next = time.monotonic()
            t_next += self.rng.expovariate(self.rate)
            now = time.monotonic()
            if t_next > now:
                self.stop_event.wait(t_next - now)
            elif now - t_next > 1.0:
                # A client starved of CPU does not burst a second of backlog; it is reported.
                self.skipped += int((now - t_next) * self.rate)
                t_next = now
            lane = self.lanes[i % len(self.lanes)]
            i += 1
            case = self.rng.choice(lane.cases)
            with self.lock:
                if self.outstanding[lane.name] >= LANE_CAP:
                    self.stats.not_sent[lane.name] += 1
                    continue
                self.outstanding[lane.name] += 1
                self.sent += 1
            if isinstance(lane, RestLane):
                self.queues[lane.name].put((case, t_next))
            else:
                lane.start(case, self._done(lane, t_next, time.monotonic()))

    def _rest_worker(self, lane):
        while True:
            job = self.queues[lane.name].get()
            if job is None:
                return
            case, t_sched = job
            t_sent = time.monotonic()
            self._done(lane, t_sched, t_sent)(*lane.call(case))

    def wait_idle(self, timeout):
        """Waits (up to `timeout`) until every request sent has ended; returns those left."""
        deadline = time.monotonic() + timeout
        while sum(self.outstanding.values()) > 0 and time.monotonic() < deadline:
            time.sleep(0.02)
        return sum(self.outstanding.values())

    def stop(self, timeout):
        """Stops the arrivals and waits (up to `timeout`) for every request sent to end."""
        self.stop_event.set()
        self.threads[0].join()
        for q in self.queues.values():
            for _ in range(REST_WORKERS_PER_LANE):
                q.put(None)
        for t in self.threads[1:]:
            t.join(timeout)
        return self.wait_idle(timeout)


class CpuMeter:
    """Cores used by tensord and by this client since the last reading."""

    def __init__(self, pid):
        self.pid = pid
        self.last = self._now()

    def _now(self):
        with open("/proc/%d/stat" % self.pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        server = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        client = os.times()
        return time.monotonic(), server, client.user + client.system

    def cores(self):
        (t0, s0, c0), self.last = self.last, self._now()
        elapsed = max(self.last[0] - t0, 1e-9)
        return (self.last[1] - s0) / elapsed, (self.last[2] - c0) / elapsed


def ramp(lanes, stats, levels, step_s, rng, cpu):
    """Closed loop at increasing concurrency (each client cycles through the lanes) until the
    answers per second stop growing; returns [(clients, OK/s, p50 s, p99 s, shed, tensord
    cores, client cores)]."""
    rows, best, flat = [], 0.0, 0
    for clients in levels:
        stop = threading.Event()
        latencies, shed = [], [0]
        lock = threading.Lock()

        def client(offset):
            i = offset
            while not stop.is_set():
                lane = lanes[i % len(lanes)]
                i += 1
                case = rng.choice(lane.cases)
                start = time.monotonic()
                ending, detail = lane.call(case)
                end = time.monotonic()
                stats.record(lane.name, ending, detail, start, start, end)
                with lock:
                    if ending == "OK":
                        latencies.append(end - start)
                    elif ending in SHED:
                        shed[0] += 1

        threads = [threading.Thread(target=client, args=(k,)) for k in range(clients)]
        cpu.cores()
        for t in threads:
            t.start()
        time.sleep(step_s)
        with lock:
            done = sorted(latencies)
        cores = cpu.cores()
        stop.set()
        for t in threads:
            t.join()
        rate = len(done) / step_s
        rows.append((clients, rate, _pct(done, 50), _pct(done, 99), shed[0]) + cores)
        if rate > best * 1.05:
            best, flat = rate, 0
        else:
            flat += 1
            if flat == 2:
                break
    return rows


def _pct(sorted_values, p):
    if not sorted_values:
        return float("nan")
    return sorted_values[min(len(sorted_values) - 1, int(len(sorted_values) * p / 100))]


# ---------------------------------------------------------------------------------------------
# Faults

class Faults:
    """The fault schedule: cycles of steps, `interval` seconds apart, until stopped. Each step
    leaves the server as it found it (the same models, one good version each), so the RSS
    sampled after each cycle compares like with like."""

    def __init__(self, server, root, cases, config_path, rng, interval, stop_event, quiet_rss):
        self.server, self.root, self.cases, self.quiet_rss = server, root, cases, quiet_rss
        self.config_path, self.rng = config_path, rng
        self.interval, self.stop = interval, stop_event
        self.staging = os.path.join(root, "staging")
        os.makedirs(self.staging)
        self.version = {name: 1 for name, _ in LOAD_MODELS}
        self.last_version = {name: 1 for name, _ in LOAD_MODELS}
        self.events = []                  # (seconds since start, kind, ok, detail)
        self.cycle_rss = []               # (cycle, seconds since start, kB, threads)
        self.probes = {}                  # probe -> {"expected", "observed", "runs", "failures"}
        self.corrupt_errors = {}          # corruption -> the error the server reported
        self.failed = False
        self.t0 = time.monotonic()
        self.steps = [("version swap, file system (mlp, latest 1)", lambda: self.swap("mlp")),
                      ("corrupt version dropped in (cnn)", self.corrupt),
                      ("version swap after the corrupt one (cnn)", lambda: self.swap("cnn")),
                      ("config rewrite + ReloadConfig", self.reload),
                      ("malformed requests", self.malformed)]

    def base(self, name):
        return os.path.join(self.root, "models", name)

    def testdata(self, name):
        return dict(LOAD_MODELS + (EXTRA_MODEL,))[name]

    def install(self, name, version, change=None):
        """Copies the committed model in as `version`: staged beside the base path, optionally
        changed, then renamed into place, so the poller never sees half a copy."""
        staged = os.path.join(self.staging, "%s-%d" % (name, version))
        shutil.copytree(os.path.join(TESTDATA, self.testdata(name), "1"), staged)
        if change:
            change(staged)
        os.rename(staged, os.path.join(self.base(name), str(version)))

    def next_version(self, name):
        self.last_version[name] += 1
        return self.last_version[name]

    def wait(self, name, predicate, timeout=60):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            states = self.server.status(name)
            if predicate(states):
                return True
            time.sleep(0.05)
        return False

    def state(self, states, version):
        return states.get(version, (None,))[0]

    def predict_check(self, name, cases=None):
        """Problems of unversioned gRPC Predicts of `name` with every golden case."""
        problems = []
        for case in cases or self.cases[name]:
            try:
                response = self.server.predict.Predict(case.grpc_request(name),
                                                       timeout=REQUEST_TIMEOUT_S)
            except grpc.RpcError as e:
                if e.code() != grpc.StatusCode.RESOURCE_EXHAUSTED:  # shed: the clients' load
                    problems.append("%s: %s %s" % (name, e.code().name, e.details()))
                continue
            problem = case.check_grpc(response)
            if problem:
                problems.append("%s: wrong answer: %s" % (name, problem))
        return problems

    # -- steps: each returns (ok, detail)

    def swap(self, name):
        old, new = self.version[name], self.next_version(name)
        start = time.monotonic()
        self.install(name, new)
        swapped = self.wait(name, lambda s: self.state(s, new) == AVAILABLE and
                            self.state(s, old) == END)
        if not swapped:
            return False, "v%d -> v%d did not happen: %s" % (old, new, self.server.status(name))
        took = time.monotonic() - start
        shutil.rmtree(os.path.join(self.base(name), str(old)))
        self.version[name] = new
        problems = self.predict_check(name)
        return not problems, "v%d -> v%d in %.1f s %s" % (old, new, took, "; ".join(problems))

    def corrupt(self):
        kinds = ("truncated saved_model.pb", "garbage variables data")
        kind = kinds[sum(1 for e in self.events if e[1].startswith("corrupt")) % 2]
        good, bad = self.version["cnn"], self.next_version("cnn")

        def damage(path):
            if kind == kinds[0]:
                pb = os.path.join(path, "saved_model.pb")
                with open(pb, "rb") as f:
                    data = f.read()
                with open(pb, "wb") as f:
                    f.write(data[:len(data) // 2])
            else:
                data_file = os.path.join(path, "variables", "variables.data-00000-of-00001")
                size = os.path.getsize(data_file)
                with open(data_file, "wb") as f:
                    f.write(self.rng.randbytes(size))
        self.install("cnn", bad, damage)
        ended = self.wait("cnn", lambda s: self.state(s, bad) == END)
        states = self.server.status("cnn")
        problems = []
        _, code, message = states.get(bad, (None, 0, ""))
        if not ended:
            problems.append("v%d never reached END: %s" % (bad, states))
        elif code == 0 or not message:
            problems.append("v%d ended without an error" % bad)
        if self.state(states, good) != AVAILABLE:
            problems.append("the good v%d is %s, not AVAILABLE" % (good, states.get(good)))
        problems += self.predict_check("cnn")
        shutil.rmtree(os.path.join(self.base("cnn"), str(bad)))
        code_name = {c.value[0]: c.name for c in grpc.StatusCode}.get(code, str(code))
        self.corrupt_errors[kind] = "%s: %s" % (code_name, message)
        return not problems, "%s as v%d: %s %s; %s" % (kind, bad, code_name, message[:160],
                                                      "; ".join(problems) or "v%d served" % good)

    def _reload(self, extra):
        """Rewrites the config file and applies the same text with ReloadConfig; returns the
        reply's status as (code, message)."""
        text = write_config(self.config_path,
                            model_entries(self.root, self.version["linear"], extra))
        req = model_management_pb2.ReloadConfigRequest()
        text_format.Parse(text, req.config)
        reply = self.server.models.HandleReloadConfigRequest(req, timeout=120)
        return reply.status.error_code, reply.status.error_message

    def reload(self):
        problems = []
        old, new = self.version["linear"], self.next_version("linear")
        self.install("linear", new)
        self.version["linear"] = new
        status = self._reload(extra=True)
        if status[0] != 0:
            return False, "reload adding extra and linear v%d failed: %s" % (new, status)
        linear, extra = self.server.status("linear"), self.server.status("extra")
        if (self.state(linear, new), self.state(linear, old)) != (AVAILABLE, END):
            problems.append("linear after reload: %s" % linear)
        if AVAILABLE not in (s[0] for s in extra.values()):
            problems.append("extra after reload: %s" % extra)
        problems += self.predict_check("extra", self.cases["mlp"])
        problems += self.predict_check("linear")
        shutil.rmtree(os.path.join(self.base("linear"), str(old)))

        status = self._reload(extra=False)
        if status[0] != 0:
            problems.append("reload removing extra failed: %s" % (status,))
        if any(s[0] != END for s in self.server.status("extra").values()):
            problems.append("extra still loaded: %s" % self.server.status("extra"))
        try:
            self.server.predict.Predict(self.cases["mlp"][0].grpc_request("extra"), timeout=30)
            problems.append("extra still answers after its removal")
        except grpc.RpcError as e:
            if e.code() != grpc.StatusCode.NOT_FOUND:
                problems.append("removed extra: %s %s, want NOT_FOUND" % (e.code().name,
                                                                          e.details()))

        # An invalid config is refused and changes nothing.
        bad = model_management_pb2.ReloadConfigRequest()
        entries = model_entries(self.root, new, False) + [("broken", "relative/path", None)]
        text_format.Parse(config_text(entries), bad.config)
        try:
            self.server.models.HandleReloadConfigRequest(bad, timeout=120)
            problems.append("a config with a relative base path was accepted")
        except grpc.RpcError as e:
            if e.code() != grpc.StatusCode.INVALID_ARGUMENT:
                problems.append("invalid config: %s, want INVALID_ARGUMENT" % e.code().name)
        if self.state(self.server.status("linear"), new) != AVAILABLE:
            problems.append("linear v%d lost after the invalid config" % new)
        return not problems, "linear v%d -> v%d, extra added and removed, invalid config " \
            "refused %s" % (old, new, "; ".join(problems))

    def malformed(self):
        failures = []
        for name, expected, probe in self.probe_list():
            ok, observed = probe()
            entry = self.probes.setdefault(name, {"expected": expected, "runs": 0,
                                                  "failures": 0, "observed": ""})
            entry["runs"] += 1
            entry["observed"] = observed
            if not ok:
                entry["failures"] += 1
                failures.append("%s: %s" % (name, observed))
        for name, _ in LOAD_MODELS:
            failures += self.predict_check(name)
        return not failures, "%d probes %s" % (len(self.probes), "; ".join(failures))

    # -- malformed requests: (name, expected, probe() -> (ok, observed))

    def probe_list(self):
        mlp = self.cases["mlp"][0]
        features = mlp.inputs["features"]
        wrong_dtype = mlp.grpc_request("mlp")
        wrong_dtype.inputs["features"].CopyFrom(tf.make_tensor_proto(features.astype(np.int32)))
        wrong_shape = mlp.grpc_request("mlp")
        wrong_shape.inputs["features"].CopyFrom(tf.make_tensor_proto(features[:1, :3]))
        unknown_input = mlp.grpc_request("mlp")
        unknown_input.inputs["no_such_input"].CopyFrom(unknown_input.inputs.pop("features"))
        path = "/v1/models/mlp:predict"
        return [
            ("gRPC unknown model", "NOT_FOUND naming it",
             lambda: self.grpc_probe(mlp.grpc_request("no_such_model"),
                                     grpc.StatusCode.NOT_FOUND, ["no_such_model"])),
            ("gRPC wrong dtype (int32 for float)", "INVALID_ARGUMENT naming input and dtypes",
             lambda: self.grpc_probe(wrong_dtype, grpc.StatusCode.INVALID_ARGUMENT,
                                     ["features", "float", "int32"])),
            ("gRPC wrong shape ([1,3] for [?,16])", "INVALID_ARGUMENT naming the shape",
             lambda: self.grpc_probe(wrong_shape, grpc.StatusCode.INVALID_ARGUMENT, ["[1,3]"])),
            ("gRPC unknown input alias", "INVALID_ARGUMENT naming the alias",
             lambda: self.grpc_probe(unknown_input, grpc.StatusCode.INVALID_ARGUMENT,
                                     ["no_such_input"])),
            ("gRPC unparseable PredictRequest bytes", "INTERNAL / INVALID_ARGUMENT, no crash",
             self.grpc_garbage_message_probe),
            ("garbage bytes on the gRPC port", "connection closed by the server",
             lambda: self.raw_probe(self.server.port, None)),
            ("REST bad JSON", "400 naming JSON",
             lambda: self.rest_probe(path, b'{"inputs": {"features": [[0.1, ', 400, ["json"])),
            ("REST wrong dtype (strings for float)", "400 naming input and type",
             lambda: self.rest_probe(path, json.dumps(
                 {"inputs": {"features": [["x"] * features.shape[1]]}}).encode(), 400,
                 ["features", "string"])),
            ("REST wrong shape ([1,3] for [?,16])", "400 naming the shape",
             lambda: self.rest_probe(path, json.dumps(
                 {"inputs": {"features": features[:1, :3].tolist()}}).encode(), 400, ["[1,3]"])),
            ("REST unknown model", "404 naming it",
             lambda: self.rest_probe("/v1/models/no_such_model:predict", mlp.rest_body, 404,
                                     ["no_such_model"])),
            ("garbage bytes on the REST port", "HTTP 400",
             lambda: self.raw_probe(self.server.rest_port, 400)),
        ]

    def grpc_probe(self, request, code, texts):
        try:
            self.server.predict.Predict(request, timeout=REQUEST_TIMEOUT_S)
            return False, "OK"
        except grpc.RpcError as e:
            details = e.details() or ""
            observed = "%s: %s" % (e.code().name, details[:200])
            return e.code() == code and all(t.lower() in details.lower() for t in texts), observed

    def grpc_garbage_message_probe(self):
        # Field 1 (model_spec) with a length far past the end: no parser can accept it.
        garbage = b"\x0a\xff\xff\xff\xff\x07" + self.rng.randbytes(64)
        raw = self.server.channel.unary_unary("/tensorflow.serving.PredictionService/Predict")
        try:
            raw(garbage, timeout=REQUEST_TIMEOUT_S)
            return False, "OK"
        except grpc.RpcError as e:
            observed = "%s: %s" % (e.code().name, (e.details() or "")[:200])
            return e.code() in (grpc.StatusCode.INTERNAL,
                                grpc.StatusCode.INVALID_ARGUMENT), observed

    def rest_probe(self, path, body, status, texts):
        # Under overload a model's REST requests may be shed (429) before their body is read;
        # such an answer says nothing about the body, so the probe is sent again.
        for _ in range(50):
            got, reply = self.server.http("POST", path, body)
            if got != 429:
                break
            time.sleep(0.1)
        try:
            error = json.loads(reply)["error"]
        except (ValueError, KeyError, TypeError):
            return False, "%s %r (no JSON error)" % (got, reply[:200])
        ok = got == status and all(t.lower() in error.lower() for t in texts)
        return ok, "%s: %s" % (got, error[:200])

    def raw_probe(self, port, want_status):
        """Random bytes on a raw connection (HTTP/1.1 framed for REST); the server must close it
        (gRPC: not HTTP/2) or answer `want_status` (REST), and keep serving."""
        garbage = self.rng.randbytes(1024)
        if want_status is not None:
            garbage += b"\r\n\r\n"
        reply, closed = b"", False
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
            try:
                s.sendall(garbage)
                while True:
                    chunk = s.recv(65536)
                    if not chunk:
                        closed = True
                        break
                    reply += chunk
            except ConnectionResetError:
                closed = True
            except socket.timeout:
                pass
        if want_status is None:
            return closed, "%s after %d reply bytes" % ("closed" if closed else "still open",
                                                          len(reply))
        match = re.match(rb"HTTP/1\.[01] (\d+)", reply)
        got = int(match.group(1)) if match else None
        return got == want_status, "HTTP %s, %s" % (got, "closed" if closed else "kept open")

    # -- the schedule

    def run(self):
        cycle = 0
        while not self.stop.is_set():
            for kind, step in self.steps:
                if self.stop.is_set():
                    return
                start = time.monotonic()
                try:
                    ok, detail = step()
                except Exception:  # a step that breaks is a failed fault check, not a hang
                    ok, detail = False, traceback.format_exc(limit=4)
                self.events.append((start - self.t0, kind, ok, detail.strip()))
                if not ok:
                    # The directories may no longer match what the next steps assume.
                    self.failed = True
                    return
                self.stop.wait(self.interval)
            cycle += 1
            self.cycle_rss.append((cycle, time.monotonic() - self.t0) + self.quiet_rss())

    def install_slow_version(self):
        """A new mlp version whose warmup runs one record --num_request_iterations_for_warmup
        times: its load lasts far longer than the drain, so SIGTERM lands mid-load."""
        version = self.next_version("mlp")

        def add_warmup(path):
            extra = os.path.join(path, "assets.extra")
            os.makedirs(extra)
            log = prediction_log_pb2.PredictionLog(predict_log=prediction_log_pb2.PredictLog(
                request=self.cases["mlp"][-1].grpc_request("mlp")))
            with tf.io.TFRecordWriter(os.path.join(extra, "tf_serving_warmup_requests")) as w:
                w.write(log.SerializeToString())
        self.install("mlp", version, add_warmup)
        return version


# ---------------------------------------------------------------------------------------------
# The run

def source_version():
    """The commit tensord was built from, and whether the working tree had changes."""
    def git(*argv):
        out = subprocess.run(["git", "-C", REPO] + list(argv), capture_output=True, text=True)
        return out.stdout.strip() if out.returncode == 0 else None
    commit = git("rev-parse", "--short", "HEAD")
    if commit is None:
        return "unknown"
    return commit + (" with uncommitted changes" if git("status", "--porcelain") else "")


def cpu_name():
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return "unknown"


class RssSampler(threading.Thread):
    """VmRSS every `period` s; notices the server ending before SIGTERM (a crash)."""

    def __init__(self, server, stats, t0, period=0.5):
        super().__init__(daemon=True)
        self.server, self.stats, self.t0, self.period = server, stats, t0, period
        self.samples = []
        self.crash = None
        self.stop = threading.Event()

    def run(self):
        while not self.stop.wait(self.period):
            code = self.server.proc.poll()
            if code is not None:
                if self.stats.sigterm_at is None:
                    self.crash = "tensord exited with %s %.1f s into the run" % (
                        code, time.monotonic() - self.t0)
                return
            rss = self.server.rss_kb()
            if rss is not None:
                self.samples.append((time.monotonic() - self.t0, rss))


def run(args, work, rng):
    t0 = time.monotonic()
    stats = Stats()
    cases = {name: load_cases(name, td, args.rows) for name, td in LOAD_MODELS}
    root = os.path.join(work, "tree")
    for name, testdata in LOAD_MODELS + (EXTRA_MODEL,):
        shutil.copytree(os.path.join(TESTDATA, testdata, "1"),
                        os.path.join(root, "models", name, "1"))
    config_path = os.path.join(root, "models.config")
    fault_stop = threading.Event()
    flags = ["--model_config_file=" + config_path,
             "--file_system_poll_wait_seconds=1",
             # Corrupt versions fail at once rather than after TF Serving's 5 retries x 60 s.
             "--max_num_load_retries=0",
             "--max_inflight_requests_per_model=%d" % args.max_inflight,
             "--max_queued_requests_per_model=%d" % args.max_queued,
             "--drain_timeout_seconds=%d" % args.drain_timeout_seconds,
             # Only the final slow version carries a warmup file.
             "--num_request_iterations_for_warmup=100000000"]
    result = {"flags": flags, "network": NETWORK, "cpu": cpu_name(), "cores": args.cores,
              "cpu_split": args.cpu_split, "seconds": args.seconds, "ci": args.ci,
              "source": source_version(), "loadavg_start": os.getloadavg()}
    server = None
    lanes = []
    try:
        write_config(config_path, model_entries(root, 1, extra=False))
        server = Tensord(flags, os.path.join(work, "tensord.log"),
                         args.cpu_split[0] if args.cpu_split else None)
        sampler = RssSampler(server, stats, t0)
        sampler.start()
        for name, _ in LOAD_MODELS:
            lanes += [GrpcLane(server, name, cases[name], stats),
                      RestLane(server, name, cases[name], stats)]
        for lane in lanes:  # first runs build the execution plans
            for case in lane.cases:
                lane.call(case)

        cpu = CpuMeter(server.proc.pid)
        result["ramp"] = ramp(lanes, stats, [1, 2, 4, 8, 16, 32], args.ramp_step_seconds, rng,
                              cpu)
        saturation = max(r[1] for r in result["ramp"])
        result["saturation_rps"] = saturation
        result["target_rps"] = args.load_factor * saturation

        stats.phase = "soak"
        load = OpenLoop(lanes, result["target_rps"], stats, rng)

        def quiet_rss():
            """VmRSS with no request in flight: arrivals pause until every answer is in, and
            1 s more, so that request buffers do not count."""
            load.running.clear()
            load.wait_idle(REQUEST_TIMEOUT_S)
            time.sleep(1.0)
            rss, threads = server.rss_kb(), server.proc_status("Threads")
            load.running.set()
            return rss, threads
        faults = Faults(server, root, cases, config_path, rng, args.fault_interval_seconds,
                        fault_stop, quiet_rss)
        result["fault_kinds"] = [kind for kind, _ in faults.steps]
        cpu.cores()
        soak_start = time.monotonic()
        load.start()
        fault_thread = threading.Thread(target=faults.run, name="faults")
        fault_thread.start()
        while time.monotonic() - soak_start < args.seconds and sampler.crash is None \
                and not faults.failed:
            time.sleep(0.2)
        fault_stop.set()
        fault_thread.join()

        shutdown = {}
        if sampler.crash is None:
            # SIGTERM while a slow load runs and requests are in flight.
            slow = faults.install_slow_version()
            shutdown["slow_version"] = slow
            faults.wait("mlp", lambda s: faults.state(s, slow) == LOADING, timeout=30)
            time.sleep(0.5)
            result["soak_cpu"] = cpu.cores()
            shutdown["slow_load_in_progress"] = faults.state(server.status("mlp"),
                                                             slow) == LOADING
            with load.lock:
                sent_before = load.sent
            with stats.lock:
                stats.sigterm_at = time.monotonic()
            server.proc.send_signal(signal.SIGTERM)
            limit = args.drain_timeout_seconds + EXIT_SLACK_S
            try:
                shutdown["exit_code"] = server.proc.wait(timeout=limit + 30)
            except subprocess.TimeoutExpired:
                shutdown["exit_code"] = None
            shutdown["exit_seconds"] = time.monotonic() - stats.sigterm_at
            shutdown["exit_limit_seconds"] = limit
            time.sleep(0.5)  # what clients send now meets closed ports
            result["load_seconds"] = stats.sigterm_at - soak_start - load.paused_seconds
            result["offered_rps"] = sent_before / result["load_seconds"]
        shutdown["unanswered_after_stop"] = load.stop(timeout=REQUEST_TIMEOUT_S + 5)
        sampler.stop.set()
        sampler.join()
        result.update(loadavg_end=os.getloadavg(), sent=load.sent, skipped=load.skipped,
                      crash=sampler.crash, shutdown=shutdown,
                      rss_samples=sampler.samples, cycle_rss=faults.cycle_rss,
                      fault_events=faults.events, probes=faults.probes,
                      corrupt_errors=faults.corrupt_errors, fault_failed=faults.failed)
    finally:
        for lane in lanes:
            if isinstance(lane, GrpcLane):
                lane.close()
        if server is not None:
            result["log_tail"] = server.log_tail()
            with open(server.log_path, errors="replace") as f:
                log = f.read()
            result["watchdog_exit"] = "shutdown took too long" in log
            drain = re.search(r"stopped.*?drain_ms[=\":]+(\d+)", log)
            result["drain_ms"] = int(drain.group(1)) if drain else None
            server.close()
    result["stats"] = stats
    return result


# ---------------------------------------------------------------------------------------------
# Verdict and report

def evaluate(result, warmup_seconds):
    stats = result["stats"]
    ok_endings = ("OK",) + SHED
    lanes = sorted({l for (_, l, _) in stats.counts})
    summary = {
        "wrong_answers": stats.total(endings=("WRONG",)),
        "unexpected_errors": sum(n for (p, _, e), n in stats.counts.items()
                                 if p in ("ramp", "soak") and e not in ok_endings),
        "in_flight_at_sigterm": stats.total(phase="inflight"),
        "lost_in_flight": sum(n for (p, _, e), n in stats.counts.items()
                              if p == "inflight" and e not in ok_endings + DRAIN_REFUSAL),
        "refused_in_flight": stats.total(phase="inflight", endings=DRAIN_REFUSAL),
        "bad_after_sigterm": sum(n for (p, _, e), n in stats.counts.items()
                                 if p == "after" and e not in ok_endings + REFUSED_AFTER_SIGTERM),
        "ok_by_lane": {l: stats.total(phase="soak", lane=l, endings=("OK",)) for l in lanes},
        "versions_seen": {m: sorted(v) for m, v in stats.versions.items()},
    }
    # Quiet readings still differ by a few percent from cycle to cycle, so growth is read off
    # the least-squares line through every reading after warm-up, not off two single readings.
    after = [c for c in result.get("cycle_rss", [])
             if c[2] is not None and c[1] >= warmup_seconds]
    rss = {"readings": len(after), "warmup_kb": None, "end_kb": None, "growth": None,
           "warmup_at_s": after[0][1] if after else None,
           "end_at_s": after[-1][1] if after else None}
    if len(after) >= 3:
        slope, intercept = np.polyfit([c[1] for c in after], [c[2] for c in after], 1)
        rss["warmup_kb"] = intercept + slope * after[0][1]
        rss["end_kb"] = intercept + slope * after[-1][1]
        rss["growth"] = (rss["end_kb"] - rss["warmup_kb"]) / rss["warmup_kb"]
    summary["rss"] = rss

    shutdown = result.get("shutdown", {})
    kinds = collections.Counter(e[1] for e in result.get("fault_events", []))
    failed_kinds = collections.Counter(e[1] for e in result.get("fault_events", []) if not e[2])
    summary["faults"] = {k: {"count": kinds[k], "failed": failed_kinds[k]} for k in kinds}
    criteria = [
        ("no crash", result.get("crash") is None and "shutdown" in result
         and "exit_code" in shutdown, result.get("crash") or "tensord ran until SIGTERM"),
        ("clean exit after SIGTERM",
         shutdown.get("exit_code") == 0
         and shutdown.get("exit_seconds", 1e9) <= shutdown.get("exit_limit_seconds", 0),
         "exit code %s after %.1f s (limit %s s)" % (shutdown.get("exit_code"),
                                                   shutdown.get("exit_seconds", float("nan")),
                                                   shutdown.get("exit_limit_seconds"))),
        ("zero wrong answers",
         summary["wrong_answers"] == 0 and all(summary["ok_by_lane"].values()),
         "%d wrong; every lane answered: %s" % (summary["wrong_answers"], summary["ok_by_lane"])),
        ("no request lost (version swaps included)", summary["unexpected_errors"] == 0,
         "%d requests ended other than OK or shed before SIGTERM" % summary["unexpected_errors"]),
        ("version swaps happened",
         all(len(summary["versions_seen"].get(m, [])) >= 2 for m in ("mlp", "linear", "cnn")),
         "versions that answered: %s" % summary["versions_seen"]),
        ("every fault handled", not result.get("fault_failed")
         and set(kinds) == set(result.get("fault_kinds", [None]))
         and all(p["failures"] == 0 for p in result.get("probes", {}).values()),
         "%d fault steps, %d failed" % (sum(kinds.values()), sum(failed_kinds.values()))),
        ("in-flight requests answered at SIGTERM",
         summary["in_flight_at_sigterm"] > 0 and summary["lost_in_flight"] == 0
         and summary["bad_after_sigterm"] == 0 and shutdown.get("slow_load_in_progress", False)
         and shutdown.get("unanswered_after_stop") == 0,
         "%d in flight, %d lost; slow load in progress: %s" % (
             summary["in_flight_at_sigterm"], summary["lost_in_flight"],
             shutdown.get("slow_load_in_progress"))),
        ("RSS growth under 5% after warm-up",
         rss["growth"] is not None and rss["growth"] < RSS_GROWTH_LIMIT,
         "fitted %s kB -> %s kB (%s) over %d quiet readings after warm-up" % (
             "n/a" if rss["growth"] is None else "%.0f" % rss["warmup_kb"],
             "n/a" if rss["growth"] is None else "%.0f" % rss["end_kb"],
             "n/a" if rss["growth"] is None else "%+.2f%%" % (100 * rss["growth"]),
             rss["readings"])),
    ]
    summary["criteria"] = [{"name": n, "passed": bool(p), "detail": d} for n, p, d in criteria]
    summary["passed"] = all(c["passed"] for c in summary["criteria"])
    return summary


def _ms(seconds):
    return "%.1f" % (1000 * seconds) if seconds == seconds else "-"


def report(result, summary, args, started):
    stats = result["stats"]
    out = []
    w = out.append
    w("# tensord soak report\n")
    w("Generated by `tests/soak/soak.py` (`make soak SOAK_SECONDS=%d`); started %s UTC.\n"
      % (args.seconds, started.strftime("%Y-%m-%d %H:%M")))
    w("**Verdict: %s**\n" % ("PASS" if summary["passed"] else "FAIL"))
    w("| criterion | result | measured |")
    w("|---|---|---|")
    for c in summary["criteria"]:
        w("| %s | %s | %s |" % (c["name"], "pass" if c["passed"] else "**FAIL**", c["detail"]))
    w("")
    w("## Setup\n")
    w("- CPU: %s, %d cores available to the run; %s" % (result["cpu"], result["cores"],
                                                       result["network"]))
    if result.get("cpu_split"):
        w("- tensord pinned to CPU %s, this client to CPU %s" % tuple(
            ",".join(str(c) for c in sorted(cpus)) for cpus in result["cpu_split"]))
    w("- Load average (every process on the machine) at the start: %s; at the end: %s"
      % ("/".join("%.1f" % x for x in result["loadavg_start"]),
         "/".join("%.1f" % x for x in result.get("loadavg_end", ()))))
    w("- tensord: bazel-bin/server/tensord built from %s" % result["source"])
    w("- Soak: %.0f s of open-loop load after the ramp (asked: %d s, less the pauses for RSS "
      "readings), then SIGTERM" % (result.get("load_seconds", 0), args.seconds))
    w("- Models (copies of tests/testdata): mlp = keras_mlp (latest 1), linear = tf1_linear "
      "(specific, swapped by config), cnn = cnn_small (latest 1, gets corrupt versions), "
      "extra = keras_mlp (added and removed by ReloadConfig)")
    w("- tensord flags: `%s`; environment: `%s`" % (
        " ".join(result["flags"]), " ".join("%s=%s" % kv for kv in SERVER_ENV.items())))
    w("- Requests: the serving_default golden cases of tests/testdata/*/golden, repeated along "
      "the batch dimension to at least %d rows; answers compared with TensorFlow's outputs "
      "repeated the same way: floats with rtol 1e-5 / atol 1e-6, ints and strings exactly\n"
      % args.rows)
    w("## Saturation ramp (closed loop, all six lanes)\n")
    w("| clients | OK/s | p50 ms | p99 ms | shed | tensord cores | client cores |")
    w("|---|---|---|---|---|---|---|")
    for clients, rate, p50, p99, shed, server_cores, client_cores in result.get("ramp", []):
        w("| %d | %.0f | %s | %s | %d | %.2f | %.2f |" % (clients, rate, _ms(p50), _ms(p99), shed,
                                                         server_cores, client_cores))
    if "saturation_rps" in result:
        w("\nSaturation: %.0f OK/s. Offered: target %.0f/s (%.1fx), sent %.0f/s (%.2fx) until "
          "SIGTERM; not sent: %d arrivals to a lane at its %d outstanding, %d while the client "
          "was over 1 s behind. CPU during the soak: tensord %.2f cores, client %.2f."
          % (result["saturation_rps"], result["target_rps"], args.load_factor,
             result.get("offered_rps", 0), result.get("offered_rps", 0) / result["saturation_rps"],
             sum(stats.not_sent.values()), LANE_CAP, result.get("skipped", 0),
             result.get("soak_cpu", (0, 0))[0], result.get("soak_cpu", (0, 0))[1]))
    w("\n## Requests during the soak (ended before SIGTERM)\n")
    w("Latency from the scheduled arrival (open loop: time waiting in the client counts).\n")
    w("| lane | requests | OK | shed | other | wrong | OK/s | p50 ms | p99 ms |")
    w("|---|---|---|---|---|---|---|---|---|")
    duration = max(result.get("load_seconds", 1), 1e-9)
    for lane in sorted({l for (_, l, _) in stats.counts}):
        total = stats.total("soak", lane)
        ok = stats.total("soak", lane, ("OK",))
        shed = stats.total("soak", lane, SHED)
        wrong = stats.total("soak", lane, ("WRONG",))
        lat = sorted(stats.latency[lane])
        w("| %s | %d | %d | %d | %d | %d | %.0f | %s | %s |" % (
            lane, total, ok, shed, total - ok - shed - wrong, wrong, ok / duration,
            _ms(_pct(lat, 50)), _ms(_pct(lat, 99))))
    w("\n## Endings by phase\n")
    w("| phase | ending | requests | first details |")
    w("|---|---|---|---|")
    by_phase = collections.Counter()
    for (phase, _, ending), n in stats.counts.items():
        by_phase[(phase, ending)] += n
    order = {"ramp": 0, "soak": 1, "inflight": 2, "after": 3}
    for (phase, ending), n in sorted(by_phase.items(), key=lambda kv: (order[kv[0][0]], kv[0][1])):
        detail = "; ".join(stats.samples.get((phase, ending), []))[:300].replace("|", "/")
        w("| %s | %s | %d | %s |" % (phase, ending, n, detail.replace("\n", " ")))
    w("\nPhases: ramp; soak; inflight = sent before SIGTERM, answered after it; after = sent "
      "after SIGTERM. OK and shed (RESOURCE_EXHAUSTED / 429 from admission control) are the "
      "only acceptable endings before SIGTERM; in flight, a REST 503 from the draining server "
      "is a clean refusal too. After SIGTERM, UNAVAILABLE, CANCELLED (at the drain "
      "deadline), 503 and refused or closed connections are refusals.\n")
    w("## Faults\n")
    w("| fault | injected | failed |")
    w("|---|---|---|")
    for kind, f in summary["faults"].items():
        w("| %s | %d | %d |" % (kind, f["count"], f["failed"]))
    w("\nErrors tensord reported for the corrupt versions (GetModelStatus):\n")
    for kind, error in sorted(result.get("corrupt_errors", {}).items()):
        w("- %s: `%s`" % (kind, error[:300]))
    failed = [e for e in result.get("fault_events", []) if not e[2]]
    for t, kind, _, detail in failed:
        w("- **failed at %.0f s, %s:** %s" % (t, kind, detail[:600].replace("\n", " ")))
    w("\nMalformed requests (each sent once per fault cycle):\n")
    w("| probe | expected | last observed | runs | failures |")
    w("|---|---|---|---|---|")
    for name, p in result.get("probes", {}).items():
        w("| %s | %s | %s | %d | %d |" % (name, p["expected"],
                                          p["observed"].replace("|", "/").replace("\n", " "),
                                          p["runs"], p["failures"]))
    sd = result.get("shutdown", {})
    w("\n## SIGTERM\n")
    w("- Slow load (mlp v%s, warmup looping) in progress at SIGTERM: %s"
      % (sd.get("slow_version"), sd.get("slow_load_in_progress")))
    w("- Requests in flight at SIGTERM (sent before it): %d; answered OK or shed: %d; refused "
      "with REST 503 while draining: %d; lost: %d"
      % (summary["in_flight_at_sigterm"],
         summary["in_flight_at_sigterm"] - summary["lost_in_flight"]
         - summary["refused_in_flight"], summary["refused_in_flight"], summary["lost_in_flight"]))
    w("- Sent after SIGTERM: %d (ended other than OK, shed or a clean refusal: %d)"
      % (stats.total("after"), summary["bad_after_sigterm"]))
    w("- Exit code %s after %.1f s (limit: drain timeout %d s + %d s); drain logged %s ms; "
      "exit forced by tensord's shutdown watchdog: %s"
      % (sd.get("exit_code"), sd.get("exit_seconds", float("nan")), args.drain_timeout_seconds,
         EXIT_SLACK_S, result.get("drain_ms"), result.get("watchdog_exit")))
    rss = summary["rss"]
    samples = [kb for _, kb in result.get("rss_samples", [])]
    w("\n## Memory (VmRSS of tensord)\n")
    w("Read after each fault cycle with arrivals paused, no request in flight and 1 s of quiet, "
      "so that request buffers do not count; growth is read off the least-squares line through "
      "the readings after warm-up (%.0f s into the soak). Samples under load: min / max below.\n"
      % args.warmup_seconds)
    if rss["growth"] is not None:
        w("- Fitted line: %.0f kB at %.0f s (warm-up) -> %.0f kB at %.0f s (end): %+.2f%% "
          "(limit %d%%), over %d readings"
          % (rss["warmup_kb"], rss["warmup_at_s"], rss["end_kb"], rss["end_at_s"],
             100 * rss["growth"], 100 * RSS_GROWTH_LIMIT, rss["readings"]))
    if samples:
        w("- All samples (every 0.5 s): min %d kB, max %d kB" % (min(samples), max(samples)))
    w("- After each fault cycle (s into the soak: kB): %s" % ", ".join(
        "%.0f: %s (%s threads)" % c[1:] for c in result.get("cycle_rss", [])))
    if not summary["passed"]:
        w("\n## tensord log (last lines)\n")
        w("```\n%s```" % result.get("log_tail", ""))
    return "\n".join(out) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=None,
                        help="open-loop soak time after the ramp (default 600; --ci: 80)")
    parser.add_argument("--ci", action="store_true",
                        help="short run for CI: --seconds 80, 1.5 s ramp steps, faults 0.3 s "
                             "apart, 40 s of warm-up")
    parser.add_argument("--out", help="write the markdown report here")
    parser.add_argument("--json", help="write the figures and the verdict here as JSON")
    parser.add_argument("--load_factor", type=float, default=2.0,
                        help="offered load as a multiple of the measured saturation")
    parser.add_argument("--rows", type=int, default=32,
                        help="rows per request: golden cases are repeated along the batch "
                             "dimension to at least this many")
    parser.add_argument("--ramp_step_seconds", type=float, default=None,
                        help="length of each ramp level (default 5; --ci: 1.5)")
    parser.add_argument("--fault_interval_seconds", type=float, default=None,
                        help="pause between fault steps (default 3; --ci: 0.3)")
    parser.add_argument("--warmup_seconds", type=float, default=None,
                        help="seconds into the soak from which RSS readings count (default "
                             "20%% of --seconds; --ci: 40)")
    parser.add_argument("--drain_timeout_seconds", type=int, default=5,
                        help="tensord's --drain_timeout_seconds")
    parser.add_argument("--max_inflight", type=int, default=4,
                        help="tensord's --max_inflight_requests_per_model")
    parser.add_argument("--max_queued", type=int, default=16,
                        help="tensord's --max_queued_requests_per_model")
    parser.add_argument("--seed", type=int, default=1, help="arrivals, cases, garbage bytes")
    parser.add_argument("--keep", action="store_true",
                        help="keep the work directory (models, config, tensord.log); it is "
                             "always kept when the run fails")
    parser.add_argument("--shared_cpus", action="store_true",
                        help="let tensord and this client share every CPU (default: the client "
                             "gets the last CPU to itself)")
    parser.add_argument("--host_network", action="store_true",
                        help="do not run in a private network namespace")
    args = parser.parse_args()
    long_defaults = {"seconds": 600, "ramp_step_seconds": 5, "fault_interval_seconds": 3}
    # RSS climbs for the first 30-40 s of load (allocator caches, arenas) and is flat after.
    ci_defaults = {"seconds": 80, "ramp_step_seconds": 1.5, "fault_interval_seconds": 0.3,
                   "warmup_seconds": 40}
    for key, value in (ci_defaults if args.ci else long_defaults).items():
        if getattr(args, key) is None:
            setattr(args, key, value)
    if args.warmup_seconds is None:
        args.warmup_seconds = 0.2 * args.seconds
    if not os.path.exists(BINARY):
        sys.exit("%s missing: run `bazel build //server:tensord` first" % BINARY)

    args.cores = len(os.sched_getaffinity(0))
    args.cpu_split = None if args.shared_cpus else split_cpus()
    if args.cpu_split:
        # Every thread of this process (imports may have started some) and all started later.
        for tid in os.listdir("/proc/self/task"):
            os.sched_setaffinity(int(tid), args.cpu_split[1])
    # The pacer must get the GIL within a millisecond or so, not Python's default 5 ms.
    sys.setswitchinterval(0.001)
    started = datetime.datetime.now(datetime.timezone.utc)
    work = tempfile.mkdtemp(prefix="tensord-soak.")
    result = run(args, work, random.Random(args.seed))
    summary = evaluate(result, args.warmup_seconds)
    text = report(result, summary, args, started)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    if args.json:
        figures = {k: v for k, v in result.items() if k not in ("stats", "rss_samples")}
        figures.update(summary)
        figures["endings"] = collections.defaultdict(dict)
        for (phase, lane, ending), n in result["stats"].counts.items():
            figures["endings"][phase]["%s %s" % (lane, ending)] = n
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=1, default=str)
    print(text)
    if summary["passed"] and not args.keep:
        shutil.rmtree(work)
    else:
        print("work directory (models, config, tensord.log): %s" % work)
    return 0 if summary["passed"] else 1


if __name__ == "__main__":
    sys.exit(main())
