"""The served path on the GPU machine (tests/gpu/check.sh): tensord with a GPU loads
keras_mlp and keras_transformer with device_policy "gpu", places their compute on the GPU
(the load log's node counts), answers REST Predict with TensorFlow's golden outputs, refuses a
request of the wrong shape with 400 and an error, and keeps serving.

    python3 tests/gpu/serve_check.py TENSORD_BINARY
"""
import json
import os
import re
import sys
import tempfile
import urllib.error
import urllib.request

import numpy as np

from gpu_server import TESTDATA, GpuServer

MODELS = ("keras_mlp", "keras_transformer")


def predict(server, model, body):
    request = urllib.request.Request(server.rest_url("/v1/models/%s:predict" % model),
                                     data=json.dumps(body).encode())
    with urllib.request.urlopen(request, timeout=60) as reply:
        return json.loads(reply.read())


def check(server):
    log = server.log()
    if not re.search(r"INFO devices .*gpus=", log):
        sys.exit("no GPU device in tensord's log:\n" + log)
    for model in MODELS:
        line = [l for l in log.splitlines() if "model version available" in l and model in l]
        if not line or "/device:GPU:0=" not in line[0]:
            sys.exit("%s has no node on the GPU:\n%s" % (model, "\n".join(line) or log))
        print("%s placed: %s" % (model, re.search(r"nodes=(\S+)", line[0]).group(1)))
        golden = os.path.join(TESTDATA, model, "golden")
        with open(os.path.join(golden, "cases.json")) as f:
            cases = json.load(f)["cases"]
        for case in cases:
            (alias, name), = case["inputs"].items()
            x = np.load(os.path.join(golden, name))
            (want_name,) = case["outputs"].values()
            want = np.load(os.path.join(golden, want_name))
            got = np.array(predict(server, model, {"instances": x.tolist()})["predictions"],
                           dtype=want.dtype)
            np.testing.assert_allclose(got, want, rtol=case["rtol"], atol=case["atol"],
                                       err_msg=model)
        print("%s: %d golden case(s) match over REST" % (model, len(cases)))
    try:
        predict(server, "keras_mlp", {"instances": [[1.0, 2.0]]})
        sys.exit("a [1, 2] input to keras_mlp (16 features) was accepted")
    except urllib.error.HTTPError as e:
        error = json.loads(e.read()).get("error", "")
        if e.code != 400 or not error:
            sys.exit("bad request answered %d %r" % (e.code, error))
        print("malformed request: 400 %s" % error)
    predict(server, "keras_mlp", {"instances": [[0.5] * 16]})
    print("still serving")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    server = GpuServer(sys.argv[1], MODELS, tempfile.mkdtemp())
    try:
        check(server)
    finally:
        server.stop()


if __name__ == "__main__":
    main()
