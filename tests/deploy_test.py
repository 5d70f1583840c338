"""Checks of deploy/ that need neither Docker nor a network:

* Prometheus: `promtool check config`, `check rules` and `test rules` (the alerts' unit tests).
* Kubernetes: `kubectl kustomize deploy/k8s` renders, the objects pass kubernetes-validate's
  schemas, and the rendered Deployment runs on the real tensord: its args (config files from the
  rendered ConfigMap, a copy of the test MLP as the model volume, free ports) reach readiness,
  every probe and the scrape path answer, and SIGTERM ends it with status 0.
* Docker: every package the Dockerfile installs exists in Debian's index, the runtime packages
  provide every shared library of tensord and tensorctl, and the entrypoint script passes
  `bash -n` and serves $MODEL_BASE_PATH/$MODEL_NAME like tensorflow/serving's.

Needs: promtool (Debian `prometheus`), kubectl, the kubernetes-validate Python package,
apt-cache/dpkg-query (Debian), and the binaries from
`bazel build //server:tensord //clients/tensorctl:tensorctl`. A missing one fails its tests.

    python3 -m pytest -q tests/deploy_test.py
"""
import os
import re
import shutil
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request

import pytest
import yaml

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEPLOY = os.path.join(REPO, "deploy")
DOCKERFILE = os.path.join(DEPLOY, "docker", "Dockerfile")
ENTRYPOINT = os.path.join(DEPLOY, "docker", "tensord_entrypoint.sh")
PROMETHEUS = os.path.join(DEPLOY, "prometheus")
TENSORD = os.path.join(REPO, "bazel-bin", "server", "tensord")
TENSORCTL = os.path.join(REPO, "bazel-bin", "clients", "tensorctl", "tensorctl")
MLP_BASE = os.path.join(REPO, "tests", "testdata", "keras_mlp")

# Where the image puts tensord (deploy/docker/Dockerfile); the Deployment and the entrypoint
# name it there.
IMAGE_TENSORD = "/usr/local/bin/tensord"
READY_TIMEOUT_S = 120


def _tool(name, how_to_get):
    path = shutil.which(name)
    if path is None:
        pytest.fail("%s not found: %s" % (name, how_to_get))
    return path


def _run(command, **kwargs):
    return subprocess.run(command, capture_output=True, text=True, cwd=REPO, timeout=300,
                          **kwargs)


def _check(command):
    result = _run(command)
    assert result.returncode == 0, "%s failed:\n%s%s" % (" ".join(command), result.stdout,
                                                         result.stderr)
    return result.stdout


def _binary(path):
    if not os.path.exists(path):
        pytest.fail("%s missing: run `bazel build //server:tensord "
                    "//clients/tensorctl:tensorctl` first" % path)
    return path


def _promtool():
    return _tool("promtool", "install Debian's `prometheus` package")


def _free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _http_get(port, path):
    """HTTP status of a GET on 127.0.0.1:port, or None while nothing listens."""
    try:
        with urllib.request.urlopen("http://127.0.0.1:%d%s" % (port, path), timeout=10) as reply:
            return reply.status
    except urllib.error.HTTPError as e:
        return e.code
    except OSError:
        return None


class _Daemon:
    """A tensord started by `command`, logging to log_dir; stop() sends SIGTERM and returns the
    exit status."""

    def __init__(self, command, log_dir, rest_port, env=None):
        self.rest_port = rest_port
        self.log_path = os.path.join(str(log_dir), "tensord.log")
        with open(self.log_path, "w") as log:
            self.proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env)

    def log(self):
        with open(self.log_path) as f:
            return f.read()

    def wait_ready(self):
        deadline = time.monotonic() + READY_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                pytest.fail("tensord exited with %d:\n%s" % (self.proc.returncode, self.log()))
            if _http_get(self.rest_port, "/v2/health/ready") == 200:
                return
            time.sleep(0.1)
        pytest.fail("tensord not ready after %d s:\n%s" % (READY_TIMEOUT_S, self.log()))

    def stop(self, timeout):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                pytest.fail("tensord did not exit within %d s of SIGTERM:\n%s"
                            % (timeout, self.log()))
        return self.proc.returncode


# --- Prometheus ---

def test_promtool_check_config():
    _check([_promtool(), "check", "config", os.path.join(PROMETHEUS, "prometheus.yml")])


def test_promtool_check_rules():
    _check([_promtool(), "check", "rules", os.path.join(PROMETHEUS, "alerts.yml")])


def test_promtool_alert_unit_tests():
    _check([_promtool(), "test", "rules", os.path.join(PROMETHEUS, "alerts_test.yml")])


# --- Kubernetes ---

@pytest.fixture(scope="module")
def rendered():
    """{kind: object} of `kubectl kustomize deploy/k8s`."""
    kubectl = _tool("kubectl", "install the `kubectl` package (Google Cloud's apt repository) "
                               "or Kubernetes' kubectl release binary; Debian's "
                               "kubernetes-client is too old for kustomize v5 bases")
    objects = list(yaml.safe_load_all(_check([kubectl, "kustomize", os.path.join(DEPLOY, "k8s")])))
    kinds = [o["kind"] for o in objects]
    assert sorted(kinds) == ["ConfigMap", "Deployment", "Service"]
    return {o["kind"]: o for o in objects}


def test_manifests_match_kubernetes_schemas(rendered):
    try:
        import kubernetes_validate
    except ImportError:
        pytest.fail("kubernetes_validate missing: pip install kubernetes-validate")
    # The oldest schemas it bundles and the newest: strict, so misspelt fields fail too.
    for version in ("1.25.0", kubernetes_validate.latest_version()):
        for obj in rendered.values():
            kubernetes_validate.validate(obj, version, strict=True)


def _container(rendered):
    return rendered["Deployment"]["spec"]["template"]["spec"]["containers"][0]


def _flag(args, name):
    values = [a.split("=", 1)[1] for a in args if a.startswith("--%s=" % name)]
    assert len(values) == 1, "expected one --%s in %s" % (name, args)
    return values[0]


def test_deployment_is_consistent(rendered):
    pod = rendered["Deployment"]["spec"]["template"]
    container = _container(rendered)
    args = container["args"]
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    assert ports == {"grpc": int(_flag(args, "port")), "http": int(_flag(args, "rest_api_port"))}
    assert container["command"] == ["/usr/bin/tini", "--", IMAGE_TENSORD]

    # The pod must outlive the preStop sleep plus the drain.
    sleep = container["lifecycle"]["preStop"]["exec"]["command"]
    assert sleep[0] == "sleep"
    drain = int(_flag(args, "drain_timeout_seconds"))
    assert pod["spec"]["terminationGracePeriodSeconds"] > int(sleep[1]) + drain

    # One scrape path everywhere: pod annotations, monitoring.config, prometheus.yml.
    annotations = pod["metadata"]["annotations"]
    assert annotations["prometheus.io/port"] == str(ports["http"])
    monitoring = rendered["ConfigMap"]["data"]["monitoring.config"]
    assert 'path: "%s"' % annotations["prometheus.io/path"] in monitoring
    with open(os.path.join(PROMETHEUS, "prometheus.yml")) as f:
        (job,) = yaml.safe_load(f)["scrape_configs"]
    assert job["metrics_path"] == annotations["prometheus.io/path"]

    service_ports = {p["name"]: p["targetPort"] for p in rendered["Service"]["spec"]["ports"]}
    assert service_ports == {"grpc": "grpc", "http": "http"}


def test_deployment_args_run_on_tensord(rendered, tmp_path):
    """The rendered container's args on the real binary, with the pod's files under tmp_path."""
    _binary(TENSORD)
    container = _container(rendered)
    mounts = {m["name"]: m["mountPath"] for m in container["volumeMounts"]}
    config_dir = tmp_path / "config"
    model_dir = tmp_path / "models"
    config_dir.mkdir()

    def local(text):
        """Paths under the pod's mount points moved to their local copies."""
        for mount, directory in ((mounts["config"], config_dir), (mounts["models"], model_dir)):
            text = re.sub(r'(^|[="\s])%s(?=[/"\s]|$)' % re.escape(mount),
                          lambda m: m.group(1) + str(directory), text, flags=re.MULTILINE)
        return text

    for name, text in rendered["ConfigMap"]["data"].items():
        (config_dir / name).write_text(local(text))
    base_paths = re.findall(r'base_path:\s*"([^"]+)"', (config_dir / "models.config").read_text())
    assert base_paths, "models.config names no model"
    for base in base_paths:
        shutil.copytree(MLP_BASE, base)

    grpc_port, rest_port = _free_port(), _free_port()
    args = []
    for arg in container["args"]:
        if arg.startswith("--port="):
            arg = "--port=%d" % grpc_port
        elif arg.startswith("--rest_api_port="):
            arg = "--rest_api_port=%d" % rest_port
        args.append(local(arg))

    daemon = _Daemon([TENSORD] + args, tmp_path, rest_port)
    try:
        daemon.wait_ready()
        probes = ["startupProbe", "readinessProbe", "livenessProbe"]
        paths = [container[p]["httpGet"]["path"] for p in probes]
        annotations = rendered["Deployment"]["spec"]["template"]["metadata"]["annotations"]
        paths.append(annotations["prometheus.io/path"])
        for path in paths:
            assert _http_get(rest_port, path) == 200, path
    finally:
        status = daemon.stop(timeout=int(_flag(args, "drain_timeout_seconds")) + 10)
    assert status == 0, daemon.log()


# --- Docker ---

def _dockerfile_installs():
    """{base image of each stage: the packages its RUN steps apt-get install}."""
    with open(DOCKERFILE) as f:
        text = re.sub(r"\\\n", " ", f.read())
    stages = {}
    for line in text.splitlines():
        words = line.split()
        if not words or words[0].startswith("#"):
            continue
        if words[0] == "FROM":
            packages = stages.setdefault(words[1], [])
        elif words[0] == "RUN":
            for command in line.split("&&"):
                w = command.split()
                if "apt-get" in w and "install" in w:
                    packages += [p for p in w[w.index("install") + 1:] if not p.startswith("-")]
    return stages


def test_dockerfile_packages_exist_in_debian():
    stages = _dockerfile_installs()
    assert set(stages) == {"debian:bookworm", "debian:bookworm-slim"}
    apt_cache = _tool("apt-cache", "a Debian system is needed (package `apt`)")
    for packages in stages.values():
        assert packages
        result = _run([apt_cache, "show", "--no-all-versions"] + packages)
        assert result.returncode == 0, (
            "apt-cache show failed (run `apt-get update` if the index is empty):\n"
            + result.stderr)
        found = re.findall(r"^Package: (\S+)$", result.stdout, re.MULTILINE)
        assert sorted(found) == sorted(packages)


def _owning_packages(binary):
    """{shared library path from ldd: the Debian package that holds it}."""
    libraries = re.findall(r"(/\S+) \(0x", _check(["ldd", binary]))
    # With merged /usr the library may be registered under /lib or /usr/lib.
    candidates = {}
    for lib in libraries:
        real = os.path.realpath(lib)
        for path in (lib, real):
            for variant in (path, path[4:] if path.startswith("/usr/") else "/usr" + path):
                candidates.setdefault(lib, []).append(variant)
    query = _run([_tool("dpkg-query", "a Debian system is needed (package `dpkg`)"), "-S"]
                 + sorted({c for cs in candidates.values() for c in cs}))
    owner = {}
    for line in query.stdout.splitlines():
        package, _, path = line.partition(": ")
        owner[path] = package.split(":")[0]
    unowned = [lib for lib in libraries if not any(c in owner for c in candidates[lib])]
    assert not unowned, "no Debian package holds %s" % unowned
    return {lib: next(owner[c] for c in candidates[lib] if c in owner) for lib in libraries}


def test_runtime_packages_provide_every_shared_library():
    runtime = _dockerfile_installs()["debian:bookworm-slim"]
    result = _run(["apt-cache", "depends", "--recurse", "--no-recommends", "--no-suggests",
                   "--no-conflicts", "--no-breaks", "--no-replaces", "--no-enhances"] + runtime)
    assert result.returncode == 0, result.stderr
    installed = {line for line in result.stdout.splitlines() if re.match(r"^[a-z0-9]", line)}
    for binary in (_binary(TENSORD), _binary(TENSORCTL)):
        missing = {lib: package for lib, package in _owning_packages(binary).items()
                   if package not in installed}
        assert not missing, "%s needs packages the runtime stage lacks: %s" % (binary, missing)


def test_entrypoint_passes_bash_n():
    assert os.access(ENTRYPOINT, os.X_OK), "the image runs it directly: it must be executable"
    _check(["bash", "-n", ENTRYPOINT])


def test_entrypoint_serves_model_name_under_model_base_path(tmp_path):
    """tensorflow/serving's contract: MODEL_NAME under MODEL_BASE_PATH, extra args appended."""
    with open(ENTRYPOINT) as f:
        script = f.read()
    assert script.count(IMAGE_TENSORD) == 1
    local_script = tmp_path / "entrypoint.sh"
    local_script.write_text(script.replace(IMAGE_TENSORD, _binary(TENSORD)))
    shutil.copytree(MLP_BASE, tmp_path / "models" / "mlp")
    env = dict(os.environ, MODEL_NAME="mlp", MODEL_BASE_PATH=str(tmp_path / "models"))

    # The script's fixed ports 8500/8501 may be taken here; appended flags win.
    grpc_port, rest_port = _free_port(), _free_port()
    daemon = _Daemon(["bash", str(local_script), "--port=%d" % grpc_port,
                      "--rest_api_port=%d" % rest_port], tmp_path, rest_port, env=env)
    try:
        daemon.wait_ready()
        assert _http_get(rest_port, "/v1/models/mlp") == 200
    finally:
        status = daemon.stop(timeout=35)
    assert status == 0, daemon.log()
