"""The PyTorch side of the GPU benchmark runs on the GPU machine only, but what it runs is the
forward pass of torch_bench.py over export_weights.py's weights: with NumPy that pass must
reproduce TensorFlow's golden outputs of keras_mlp and keras_transformer, or the benchmark
would compare tensord with a different model."""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def test_reference_forward_passes_match_tensorflow(tmp_path):
    export = subprocess.run([sys.executable, os.path.join(HERE, "export_weights.py"),
                             str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert export.returncode == 0, export.stderr
    assert sorted(os.listdir(tmp_path)) == ["keras_mlp.npz", "keras_transformer.npz"]
    validate = subprocess.run([sys.executable, os.path.join(HERE, "torch_bench.py"),
                               "--validate", str(tmp_path)],
                              capture_output=True, text=True, timeout=300)
    assert validate.returncode == 0, validate.stdout + validate.stderr
    assert "keras_mlp: the reference forward pass matches" in validate.stdout
    assert "keras_transformer: the reference forward pass matches" in validate.stdout
