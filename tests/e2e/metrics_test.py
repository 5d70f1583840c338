"""Prometheus metrics of the real tensord binary: the live exposition passes `promtool check
metrics` (lint findings only where TF Serving's own names imply them), counts what was served,
and a real Prometheus server scrapes it.

    python3 -m pytest -q tests/e2e/metrics_test.py
"""
import json
import os
import shutil
import subprocess
import time
import urllib.parse
import urllib.request

import grpc
import numpy as np
import pytest
import tensorflow as tf
from tensorflow_serving.apis import predict_pb2

from tensord_process import MLP_BASE, Server, free_port

METRICS_PATH = "/custom/metrics"

# What promtool's linter says about TF Serving's metric names (see server/metrics/promtool_test.cc);
# tensord's own families must draw no finding at all.
TF_NAME_FINDINGS = {
    "metric names should not contain ':'",
    'counter metrics should have "_total" suffix',
    'non-histogram and non-summary metrics should not have "_count" suffix',
}


def _tool(name):
    path = shutil.which(name)
    if path is None:
        pytest.fail("%s not installed: `make deps` installs Debian's prometheus package" % name)
    return path


@pytest.fixture
def served(tmp_path):
    monitoring = os.path.join(str(tmp_path), "monitoring.config")
    with open(monitoring, "w") as f:
        f.write('prometheus_config { enable: true path: "%s" }\n' % METRICS_PATH)
    server = Server(["--model_name=mlp", "--model_base_path=" + MLP_BASE,
                     "--monitoring_config_file=" + monitoring, "--device_policy=cpu"],
                    tmp_path, rest=True)
    req = predict_pb2.PredictRequest()
    req.model_spec.name = "mlp"
    req.inputs["features"].CopyFrom(tf.make_tensor_proto(np.zeros((2, 16), np.float32)))
    for _ in range(3):
        server.predict.Predict(req, timeout=30)
    req.model_spec.name = "nope"
    with pytest.raises(grpc.RpcError):
        server.predict.Predict(req, timeout=30)
    rest_body = json.dumps({"instances": [[0.0] * 16]}).encode()
    urllib.request.urlopen(urllib.request.Request(
        server.rest_url + "/v1/models/mlp:predict", data=rest_body), timeout=30).read()
    yield server
    assert server.stop() == 0, server.log()


def test_exposition_counts_requests_and_passes_promtool(served):
    code, text = served.http_get(METRICS_PATH)
    assert code == 200
    lines = set(text.splitlines())
    assert ':tensorflow:serving:request_count{model_name="mlp",status="OK"} 4' in lines
    # A model the server does not have is counted under one label, not under the client's name.
    assert (':tensorflow:serving:request_count{model_name="<unknown>",status="NOT_FOUND"} 1'
            in lines)
    assert "nope" not in text
    assert (':tensorflow:serving:request_latency_count{model_name="mlp",API="Predict",'
            'entrypoint="GRPC"} 3') in lines
    assert (':tensorflow:serving:request_latency_count{model_name="mlp",API="predict",'
            'entrypoint="REST"} 1') in lines
    assert 'tensord_model_version_state{model="mlp",version="1"} 30' in lines
    # On the CPU (--device_policy=cpu) the version keeps no weights in GPU memory.
    assert 'tensord_model_device_memory_bytes{model="mlp",version="1"} 0' in lines
    assert ('tensord_requests_total{model="mlp",version="1",signature="serving_default",'
            'method="Predict",protocol="grpc",code="OK"} 3') in lines
    assert 'tensord_requests_in_flight{model="mlp",method="Predict"} 0' in lines
    assert any(l.startswith(':tensorflow:cc:saved_model:load_attempt_count{model_path="') and
               l.endswith('/1",status="success"} 1') for l in lines), text
    # The default path is not served when the config names another one.
    assert served.http_get("/monitoring/prometheus/metrics")[0] == 400

    check = subprocess.run([_tool("promtool"), "check", "metrics"], input=text,
                           capture_output=True, text=True, timeout=60)
    assert check.returncode in (0, 3), check.stderr  # 1 = does not parse
    for finding in check.stderr.splitlines():
        name, _, what = finding.partition(" ")
        assert name.startswith(":tensorflow:") and what in TF_NAME_FINDINGS, finding


def test_real_prometheus_scrapes_tensord(served, tmp_path):
    port = free_port()
    config = os.path.join(str(tmp_path), "prometheus.yml")
    with open(config, "w") as f:
        f.write("global:\n  scrape_interval: 1s\n"
                "scrape_configs:\n"
                "  - job_name: tensord\n"
                "    metrics_path: %s\n"
                "    static_configs:\n"
                "      - targets: ['127.0.0.1:%d']\n" % (METRICS_PATH, served.rest_port))
    assert subprocess.run([_tool("promtool"), "check", "config", config],
                          capture_output=True, timeout=60).returncode == 0
    log = open(os.path.join(str(tmp_path), "prometheus.log"), "w")
    prometheus = subprocess.Popen(
        [_tool("prometheus"), "--config.file=" + config,
         "--storage.tsdb.path=" + os.path.join(str(tmp_path), "tsdb"),
         "--web.listen-address=127.0.0.1:%d" % port], stdout=log, stderr=subprocess.STDOUT)
    try:
        def query(expr):
            url = "http://127.0.0.1:%d/api/v1/query?query=%s" % (port, urllib.parse.quote(expr))
            with urllib.request.urlopen(url, timeout=10) as reply:
                return json.loads(reply.read())["data"]["result"]

        expr = ':tensorflow:serving:request_count{model_name="mlp",status="OK"}'
        result = []
        deadline = time.time() + 60
        while time.time() < deadline and not result:
            time.sleep(1)
            try:
                result = query(expr)
            except OSError:
                pass
        assert result, open(log.name).read()
        assert result[0]["value"][1] == "4"
        assert query('up{job="tensord"}')[0]["value"][1] == "1"
        assert query('tensord_model_version_state{model="mlp"}')[0]["value"][1] == "30"
        rate = query('sum(tensord_request_duration_seconds_count{model="mlp"})')
        assert rate[0]["value"][1] == "4"
    finally:
        prometheus.terminate()
        prometheus.wait(timeout=30)
        log.close()
