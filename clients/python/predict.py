#!/usr/bin/env python3
"""Calls a tensord (or tensorflow_model_server) gRPC endpoint with TF Serving's official client.

  python3 clients/python/predict.py --server localhost:8500 --model mlp \
      --input features='[[0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6]]'

Nothing here is tensord-specific: the same code talks to TensorFlow Serving.
"""
import argparse
import json

import grpc
import numpy as np
import tensorflow as tf
from tensorflow_serving.apis import predict_pb2, prediction_service_pb2_grpc


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", default="localhost:8500")
    parser.add_argument("--model", required=True)
    parser.add_argument("--signature", default="serving_default")
    parser.add_argument("--input", action="append", default=[], metavar="ALIAS=JSON",
                        help="a float32 input as a JSON nested list (repeatable)")
    args = parser.parse_args()

    request = predict_pb2.PredictRequest()
    request.model_spec.name = args.model
    request.model_spec.signature_name = args.signature
    for item in args.input:
        alias, value = item.split("=", 1)
        request.inputs[alias].CopyFrom(
            tf.make_tensor_proto(np.asarray(json.loads(value), dtype=np.float32)))

    with grpc.insecure_channel(args.server) as channel:
        stub = prediction_service_pb2_grpc.PredictionServiceStub(channel)
        response = stub.Predict(request, timeout=30)
    outputs = {alias: tf.make_ndarray(t).tolist() for alias, t in response.outputs.items()}
    print(json.dumps({"model_version": response.model_spec.version.value, "outputs": outputs}))


if __name__ == "__main__":
    main()
