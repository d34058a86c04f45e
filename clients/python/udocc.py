"""A thin client of `udocc serve`, for Python programs: the standard library only, NumPy
optional (arrays come back as NumPy arrays where it is installed, else as lists).

Two ways in:

    from udocc import Client, Detector

    c = Client("http://127.0.0.1:8080")          # a server that is running
    scores = c.decision_function([[1.0, 2.0], [9.0, 9.0]])
    labels = c.predict(rows)                      # 1 = anomaly, as PyOD's predict

    d = Detector(contamination=None).fit(X)       # runs `udocc fit` and `udocc serve`
    d.decision_scores_, d.labels_, d.threshold_   # PyOD's fitted attributes
    d.decision_function(X_new); d.close()

Scores are udocc's: higher is more anomalous, as PyOD's decision_function.
"""

import csv
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

try:
    import numpy as _np
except ImportError:  # NumPy is optional
    _np = None

__all__ = ["Client", "Detector", "UdoccError"]


class UdoccError(Exception):
    """A refusal of the server: its HTTP status, code and message, and the row and column
    where it names them."""

    def __init__(self, status, code, message, row=None, column=None):
        super().__init__(f"{status} {code}: {message}")
        self.status, self.code, self.message, self.row, self.column = status, code, message, row, column


def _array(values, dtype=float):
    if _np is not None:
        return _np.asarray(values, dtype=dtype)
    return list(values)


def _cell(v):
    """A row object's cell: None and NaN are missing (null), text stays text (a
    category or a date the model encodes), numbers are floats."""
    if v is None or isinstance(v, str):
        return v
    f = float(v)
    return None if f != f else f


def _rows(X):
    """X as rows the server reads: a NumPy array, a list of lists (numbers), a list of
    dicts (column: value; text for a model's text columns, None for a missing cell), or
    a pandas frame (its records)."""
    if hasattr(X, "to_dict"):  # a pandas DataFrame, with its column names
        X = X.to_dict(orient="records")
    elif hasattr(X, "tolist"):
        X = X.tolist()
    rows = [{k: _cell(v) for k, v in r.items()} if isinstance(r, dict) else [float(v) for v in r] for r in X]
    if not rows:
        raise ValueError("no rows")
    return rows


class Client:
    """A client of a running `udocc serve` at url (token: the bearer token of
    --token-file, if any)."""

    def __init__(self, url="http://127.0.0.1:8080", token=None, timeout=30.0):
        self.url, self.token, self.timeout = url.rstrip("/"), token, timeout

    def _request(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, method=method)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        if self.token:
            req.add_header("Authorization", "Bearer " + self.token)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                return json.loads(resp.read())
        except urllib.error.HTTPError as e:
            try:
                err = json.loads(e.read())["error"]
            except Exception:
                raise UdoccError(e.code, "http", str(e)) from None
            raise UdoccError(e.code, err.get("code"), err.get("message"), err.get("row"), err.get("column")) from None

    def ready(self):
        """Whether the server serves a model (GET /readyz)."""
        try:
            return self._request("GET", "/readyz").get("status") == "ready"
        except (UdoccError, OSError):
            return False

    def model(self):
        """The model's metadata (GET /v1/model): columns, method, threshold, version."""
        return self._request("GET", "/v1/model")

    def score(self, X, explain=0):
        """The server's answer for rows X (POST /v1/score): per row its score, label and
        probability, and with explain=N its N leading features."""
        path = "/v1/score" + (f"?explain={int(explain)}" if explain else "")
        return self._request("POST", path, {"rows": _rows(X)})

    def decision_function(self, X):
        """The anomaly scores of X, higher is more anomalous."""
        return _array([r["score"] for r in self.score(X)["results"]])

    def predict(self, X):
        """The labels of X: 1 for an anomaly, 0 otherwise (PyOD's convention)."""
        return _array([1 if r["label"] else 0 for r in self.score(X)["results"]], dtype=int)

    def predict_proba(self, X):
        """Per row [P(normal), P(anomaly)], udocc's probability (1/2 at the threshold)."""
        out = []
        for r in self.score(X)["results"]:
            p = r.get("probability", r.get("confidence"))
            out.append([1.0 - p, p])
        return _array(out)

    def explain(self, X, n=3):
        """Per row the n columns that raise its score most, with their parts."""
        return [[(t["column"], t["part"]) for t in r.get("top", [])] for r in self.score(X, explain=n)["results"]]

    def reload(self):
        """Load the model folder again (POST /v1/reload); its metadata."""
        return self._request("POST", "/v1/reload")


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Detector(Client):
    """PyOD's fit/decision_function lifecycle over the udocc command: fit(X) writes X to a
    CSV, runs `udocc fit` and serves the model with `udocc serve` on a free loopback port.
    contamination: the known share of anomalies, or None for udocc's own count. udocc: the
    binary (default $UDOCC or `udocc` on PATH). Close it (or use it in a with block)."""

    def __init__(self, contamination=None, random_state=0, udocc=None, fit_args=(), timeout=120.0):
        super().__init__(timeout=timeout)
        self.contamination, self.random_state, self.fit_args = contamination, random_state, list(fit_args)
        self.udocc = udocc or os.environ.get("UDOCC") or shutil.which("udocc") or "udocc"
        self._dir, self._server = None, None

    def fit(self, X, y=None):
        rows = _rows(X)
        self.close()
        self._dir = tempfile.mkdtemp(prefix="udocc-")
        path = os.path.join(self._dir, "train.csv")
        with open(path, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow([f"x{j + 1}" for j in range(len(rows[0]))])
            w.writerows([repr(v) for v in r] for r in rows)
        out = os.path.join(self._dir, "fit")
        cmd = [self.udocc, "fit", path, "--out", out, "--seed", str(self.random_state), "--explain", "0", "--quiet"]
        if self.contamination is not None:
            cmd += ["--contamination", str(self.contamination)]
        subprocess.run(cmd + self.fit_args, check=True, capture_output=True)
        with open(os.path.join(out, "scores.csv"), newline="") as f:
            rec = list(csv.DictReader(f))
        self.decision_scores_ = _array([float(r["score"]) for r in rec])
        self.labels_ = _array([int(r["label"]) for r in rec], dtype=int)
        port = _free_port()
        self.url = f"http://127.0.0.1:{port}"
        self._server = subprocess.Popen([self.udocc, "serve", "--model", os.path.join(out, "model"), "--addr", f"127.0.0.1:{port}"],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + self.timeout
        while not self.ready():
            if self._server.poll() is not None or time.monotonic() > deadline:
                self.close()
                raise UdoccError(0, "serve", "udocc serve did not come up")
            time.sleep(0.05)
        self.threshold_ = self.model().get("threshold")
        return self

    def close(self):
        """Stop the server and remove the fit's folder."""
        if self._server is not None:
            self._server.terminate()
            self._server.wait(timeout=30)
            self._server = None
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
