"""Production hardening against the real tensord binary: TLS and mutual TLS for gRPC (the
official TF Serving client over a secure channel) and REST (curl), request size limits, hostile
tensor shapes, model-management restriction, bounded metric labels, and models with ops that
have no kernel. Certificates are made by openssl in the test."""
import json
import os
import signal
import subprocess
import time

import grpc
import numpy as np
import pytest
import tensorflow as tf
from tensorflow_serving.apis import model_management_pb2, predict_pb2

from tensord_process import MLP_BASE, MLP_GOLDEN, Server, model_config_proto

FEATURES = np.load(os.path.join(MLP_GOLDEN, "c0_in_features.npy"))
EXPECTED = np.load(os.path.join(MLP_GOLDEN, "c0_out_output_0.npy"))


def openssl(*args, cwd):
    subprocess.run(["openssl"] + list(args), cwd=cwd, check=True, capture_output=True)


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    """A CA, a server certificate for 127.0.0.1/localhost and a client certificate, both signed
    by the CA, and a second CA nobody trusts. Returns {name: path}."""
    d = str(tmp_path_factory.mktemp("pki"))
    for ca in ("ca", "rogue_ca"):
        openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj",
                "/CN=%s" % ca, "-keyout", ca + ".key", "-out", ca + ".crt", cwd=d)
    with open(os.path.join(d, "server.ext"), "w") as f:
        f.write("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    for name, signer in (("server", "ca"), ("client", "ca"), ("rogue_client", "rogue_ca")):
        openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=%s" % name,
                "-keyout", name + ".key", "-out", name + ".csr", cwd=d)
        extra = ["-extfile", "server.ext"] if name == "server" else []
        openssl("x509", "-req", "-in", name + ".csr", "-CA", signer + ".crt", "-CAkey",
                signer + ".key", "-CAcreateserial", "-days", "2", "-out", name + ".crt",
                *extra, cwd=d)
    return {os.path.splitext(n)[0] + os.path.splitext(n)[1].replace(".", "_"):
            os.path.join(d, n) for n in os.listdir(d)}


def read(path):
    with open(path) as f:
        return f.read()


def ssl_config_file(tmp_path, pki, client_verify, name):
    """A text SSLConfig with the server's key and certificate inline (TF Serving's format)."""
    lines = ["server_key: %s" % json.dumps(read(pki["server_key"])),
             "server_cert: %s" % json.dumps(read(pki["server_crt"]))]
    if client_verify:
        lines += ["custom_ca: %s" % json.dumps(read(pki["ca_crt"])), "client_verify: true"]
    path = os.path.join(str(tmp_path), name)
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path


def mlp_flags():
    return ["--model_name=mlp", "--model_base_path=" + MLP_BASE]


def predict_request(features):
    req = predict_pb2.PredictRequest()
    req.model_spec.name = "mlp"
    req.inputs["features"].CopyFrom(tf.make_tensor_proto(features))
    return req


def expect_golden(stub):
    reply = stub.Predict(predict_request(FEATURES), timeout=30)
    np.testing.assert_allclose(tf.make_ndarray(reply.outputs["output_0"]), EXPECTED,
                               rtol=1e-5, atol=1e-6)


def secure_stub(pki, with_client_cert, port):
    from tensorflow_serving.apis import prediction_service_pb2_grpc
    creds = grpc.ssl_channel_credentials(
        root_certificates=read(pki["ca_crt"]).encode(),
        private_key=read(pki["client_key"]).encode() if with_client_cert else None,
        certificate_chain=read(pki["client_crt"]).encode() if with_client_cert else None)
    channel = grpc.secure_channel("127.0.0.1:%d" % port, creds)
    return channel, prediction_service_pb2_grpc.PredictionServiceStub(channel)


def test_grpc_tls_serves_the_official_client_and_refuses_plaintext(tmp_path, pki):
    config = ssl_config_file(tmp_path, pki, client_verify=False, name="ssl.txt")
    creds = grpc.ssl_channel_credentials(root_certificates=read(pki["ca_crt"]).encode())
    srv = Server(mlp_flags() + ["--ssl_config_file=" + config], tmp_path, credentials=creds)
    try:
        expect_golden(srv.predict)
        # A plaintext client against the TLS port fails cleanly, and the server serves on.
        from tensorflow_serving.apis import prediction_service_pb2_grpc
        with grpc.insecure_channel("127.0.0.1:%d" % srv.port) as plain:
            stub = prediction_service_pb2_grpc.PredictionServiceStub(plain)
            with pytest.raises(grpc.RpcError) as err:
                stub.Predict(predict_request(FEATURES), timeout=5)
            assert err.value.code() == grpc.StatusCode.UNAVAILABLE
        expect_golden(srv.predict)
        assert "tls=on" in srv.log() or '"tls":"on"' in srv.log()
    finally:
        assert srv.stop() == 0


def test_grpc_mutual_tls_needs_a_client_certificate(tmp_path, pki):
    config = ssl_config_file(tmp_path, pki, client_verify=True, name="mtls.txt")
    creds = grpc.ssl_channel_credentials(
        root_certificates=read(pki["ca_crt"]).encode(),
        private_key=read(pki["client_key"]).encode(),
        certificate_chain=read(pki["client_crt"]).encode())
    srv = Server(mlp_flags() + ["--ssl_config_file=" + config], tmp_path, credentials=creds)
    try:
        expect_golden(srv.predict)
        channel, stub = secure_stub(pki, with_client_cert=False, port=srv.port)
        with channel:
            with pytest.raises(grpc.RpcError) as err:
                stub.Predict(predict_request(FEATURES), timeout=5)
            assert err.value.code() == grpc.StatusCode.UNAVAILABLE
        expect_golden(srv.predict)
    finally:
        assert srv.stop() == 0


def curl(*args):
    """(exit code, HTTP status or 0, body) of a curl call."""
    out = subprocess.run(["curl", "-sS", "--max-time", "20", "-w", "\n%{http_code}"] +
                         list(args), capture_output=True, text=True)
    body, _, code = out.stdout.rpartition("\n")
    return out.returncode, int(code or 0), body


def test_rest_mutual_tls_with_curl(tmp_path, pki):
    config = ssl_config_file(tmp_path, pki, client_verify=True, name="rest_mtls.txt")
    srv = Server(mlp_flags() + ["--rest_api_ssl_config_file=" + config], tmp_path, rest=True)
    try:
        url = "https://127.0.0.1:%d/v1/models/mlp:predict" % srv.rest_port
        body = json.dumps({"instances": FEATURES.tolist()})
        rc, status, reply = curl("--cacert", pki["ca_crt"], "--cert", pki["client_crt"],
                                 "--key", pki["client_key"], "-d", body, url)
        assert (rc, status) == (0, 200), reply
        np.testing.assert_allclose(np.array(json.loads(reply)["predictions"]), EXPECTED,
                                   rtol=1e-5, atol=1e-6)
        # Without a client certificate, or with one from a CA the server does not trust, the
        # handshake fails; plain HTTP to the TLS port gets no answer.
        rc, status, _ = curl("--cacert", pki["ca_crt"], "-d", body, url)
        assert rc != 0 and status == 0
        rc, status, _ = curl("--cacert", pki["ca_crt"], "--cert", pki["rogue_client_crt"],
                             "--key", pki["rogue_client_key"], "-d", body, url)
        assert rc != 0 and status == 0
        rc, status, _ = curl("-d", body, url.replace("https:", "http:"))
        assert status != 200
        expect_golden(srv.predict)  # gRPC stays plaintext unless --ssl_config_file
    finally:
        assert srv.stop() == 0


def test_bad_ssl_config_stops_startup_naming_the_flag(tmp_path, pki):
    path = os.path.join(str(tmp_path), "bad_ssl.txt")
    with open(path, "w") as f:
        f.write("server_key: 'not a key'\n")
    from tensord_process import BINARY
    out = subprocess.run([BINARY, "--ssl_config_file=" + path] + mlp_flags(),
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2
    assert "--ssl_config_file" in out.stderr and "server_cert" in out.stderr


def hostile_request(dims, content=None, values=1, dtype=None):
    req = predict_pb2.PredictRequest()
    req.model_spec.name = "mlp"
    proto = req.inputs["features"]
    proto.dtype = dtype if dtype is not None else tf.float32.as_datatype_enum
    for d in dims:
        proto.tensor_shape.dim.add().size = d
    if content is not None:
        proto.tensor_content = content
    proto.float_val.extend([1.0] * values)
    return req


def test_hostile_shapes_and_limits_fail_cleanly(tmp_path):
    srv = Server(mlp_flags() + ["--max_request_tensor_elements=4096",
                                "--grpc_max_receive_message_size=65536"], tmp_path, rest=True)
    try:
        cases = [
            # 2^58 x 16 floats need 2^64 bytes: the byte count wrapped to 0 and the fill overran
            # the empty buffer (regression: the server died).
            (hostile_request([2 ** 58, 16]), grpc.StatusCode.INVALID_ARGUMENT, "too large"),
            (hostile_request([2 ** 61, 16]), grpc.StatusCode.INVALID_ARGUMENT,
             "too many elements"),
            (hostile_request([2 ** 40, 16]), grpc.StatusCode.RESOURCE_EXHAUSTED,
             "--max_request_tensor_elements"),
            (hostile_request([2 ** 40, 16], content=b"abcd", values=0),
             grpc.StatusCode.INVALID_ARGUMENT, "tensor_content has 4 bytes"),
            (hostile_request([1, 17]), grpc.StatusCode.INVALID_ARGUMENT, "17"),
            # An unknown dtype above 100 counted as a reference type, and naming it in the error
            # recursed until the stack overflowed (found by tests/fuzz:tensor_proto_fuzzer).
            (hostile_request([1, 16], dtype=1073741823), grpc.StatusCode.INVALID_ARGUMENT,
             "dtype_1073741823"),
            (predict_request(np.zeros((8192, 16), np.float32)),
             grpc.StatusCode.RESOURCE_EXHAUSTED, "Received message larger than max"),
        ]
        for req, code, text in cases:
            with pytest.raises(grpc.RpcError) as err:
                srv.predict.Predict(req, timeout=30)
            assert err.value.code() == code, err.value.details()
            assert text in err.value.details(), err.value.details()
        expect_golden(srv.predict)
        assert srv.proc.poll() is None
        metrics = srv.http_get("/monitoring/prometheus/metrics")[1]
        assert 'model_name="mlp",status="RESOURCE_EXHAUSTED"' in metrics
    finally:
        assert srv.stop() == 0


def test_rest_body_limit_form_encoded_bodies_and_gzip(tmp_path):
    srv = Server(mlp_flags() + ["--rest_api_max_body_bytes=20000", "--rest_api_gzip_min_bytes=100"],
                 tmp_path, rest=True)
    try:
        url = srv.rest_url + "/v1/models/mlp:predict"
        # curl -d (form content type) with a JSON body over 8 KB, as TF Serving's docs do.
        body = json.dumps({"instances": FEATURES.tolist()}) + " " * 10000
        rc, status, reply = curl("-d", body, url)
        assert (rc, status) == (0, 200), reply
        np.testing.assert_allclose(np.array(json.loads(reply)["predictions"]), EXPECTED,
                                   rtol=1e-5, atol=1e-6)
        # Over the limit: refused from Content-Length, before the body is read.
        rc, status, reply = curl("-d", " " * 30000, url)
        assert status == 413, reply
        assert "Request Entity Too Large" in reply, reply

        rows = json.dumps({"instances": FEATURES.tolist() * 20})  # a reply of over 100 bytes

        def headers(*accept):
            out = subprocess.run(["curl", "-sS", "-D", "-", "-o", "/dev/null"] +
                                 [a for e in accept for a in ("-H", "Accept-Encoding: " + e)] +
                                 ["-d", rows, url], capture_output=True, text=True)
            return out.stdout.lower()
        # gzip at level 1 for clients that accept it; never brotli (CPU-seconds per megabyte).
        assert "content-encoding: gzip" in headers("br, gzip")
        assert "content-encoding" not in headers("br")
        assert "content-encoding" not in headers()
        rc, status, reply = curl("--compressed", "-d", rows, url)
        assert (rc, status) == (0, 200), reply
        np.testing.assert_allclose(np.array(json.loads(reply)["predictions"]),
                                   np.tile(EXPECTED, (20, 1)), rtol=1e-5, atol=1e-6)
    finally:
        assert srv.stop() == 0


def test_unknown_model_names_do_not_add_metric_series(tmp_path):
    srv = Server(mlp_flags(), tmp_path, rest=True)
    try:
        for i in range(20):
            req = predict_request(FEATURES)
            req.model_spec.name = "probe%d" % i
            with pytest.raises(grpc.RpcError) as err:
                srv.predict.Predict(req, timeout=30)
            assert err.value.code() == grpc.StatusCode.NOT_FOUND
        metrics = srv.http_get("/monitoring/prometheus/metrics")[1]
        assert "probe" not in metrics
        assert 'model_name="<unknown>",status="NOT_FOUND"} 20' in metrics
    finally:
        assert srv.stop() == 0


def reload_request():
    req = model_management_pb2.ReloadConfigRequest()
    req.config.CopyFrom(model_config_proto([("mlp", MLP_BASE)]))
    return req


def test_model_management_can_be_disabled_or_need_a_header(tmp_path):
    srv = Server(mlp_flags() + ["--enable_model_management=false"], tmp_path)
    try:
        with pytest.raises(grpc.RpcError) as err:
            srv.models.HandleReloadConfigRequest(reload_request(), timeout=30)
        assert err.value.code() == grpc.StatusCode.PERMISSION_DENIED
        assert "--enable_model_management" in err.value.details()
    finally:
        assert srv.stop() == 0
    srv = Server(mlp_flags() + ["--model_management_header=x-admin-key=s3cret"], tmp_path)
    try:
        with pytest.raises(grpc.RpcError) as err:
            srv.models.HandleReloadConfigRequest(reload_request(), timeout=30)
        assert err.value.code() == grpc.StatusCode.UNAUTHENTICATED
        with pytest.raises(grpc.RpcError) as err:
            srv.models.HandleReloadConfigRequest(reload_request(), timeout=30,
                                                 metadata=[("x-admin-key", "wrong")])
        assert err.value.code() == grpc.StatusCode.UNAUTHENTICATED
        reply = srv.models.HandleReloadConfigRequest(reload_request(), timeout=30,
                                                     metadata=[("x-admin-key", "s3cret")])
        assert reply.status.error_code == 0
        expect_golden(srv.predict)
    finally:
        assert srv.stop() == 0


def test_model_with_an_op_without_kernel_fails_its_load(tmp_path):
    """Regression: such a model reported AVAILABLE and then failed every request."""
    class Lgamma(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
        def serve(self, x):
            return {"y": tf.math.lgamma(x)}
    module = Lgamma()
    base = os.path.join(str(tmp_path), "lgamma")
    tf.saved_model.save(module, os.path.join(base, "1"),
                        signatures={"serving_default": module.serve})
    srv = Server(["--model_name=lgamma", "--model_base_path=" + base], tmp_path)
    try:
        from tensorflow_serving.apis import get_model_status_pb2
        req = get_model_status_pb2.GetModelStatusRequest()
        req.model_spec.name = "lgamma"
        status = srv.models.GetModelStatus(req, timeout=30).model_version_status[0]
        assert status.state == 50  # END
        assert status.status.error_code == 12  # UNIMPLEMENTED
        assert "no kernel for: Lgamma" in status.status.error_message
    finally:
        assert srv.stop() == 0


def test_sigterm_during_initial_load_retries_exits_at_once(tmp_path):
    """Regression: SIGTERM was only awaited once every load and its retries had finished, so a
    broken model (5 retries a minute apart by default) kept it waiting for minutes. Retries
    now run in the background and end with the process."""
    from tensord_process import BINARY, free_port
    base = os.path.join(str(tmp_path), "broken")
    os.makedirs(os.path.join(base, "1"))
    with open(os.path.join(base, "1", "saved_model.pb"), "wb") as f:
        f.write(b"not a SavedModel")
    log_path = os.path.join(str(tmp_path), "broken.log")
    with open(log_path, "w") as log:
        proc = subprocess.Popen([BINARY, "--port=%d" % free_port(), "--model_name=broken",
                                 "--model_base_path=" + base, "--max_num_load_retries=5",
                                 "--load_retry_interval_micros=60000000"],
                                stdout=log, stderr=subprocess.STDOUT)
        try:
            for _ in range(200):  # until the first attempt has failed and the retry waits
                if "broken" in read(log_path) and "retry" in read(log_path).lower():
                    break
                time.sleep(0.05)
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(timeout=5) == 0
        finally:
            if proc.poll() is None:
                proc.kill()
    assert "shutting down" in read(log_path)
