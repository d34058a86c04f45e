"""Tests of the Python client against a live `udocc serve` (run by cmd/udocc's
TestPythonClient with $UDOCC the built binary): python3 test_udocc.py."""

import os
import random
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import udocc  # noqa: E402


def table(n, d, seed):
    rng = random.Random(seed)
    rows = [[rng.gauss(0, 1) for _ in range(d)] for _ in range(n)]
    for i in range(9, n, 10):
        rows[i] = [v + 8 for v in rows[i]]
    return rows


class DetectorTest(unittest.TestCase):
    def test_fit_and_score(self):
        X = table(200, 3, 1)
        fast = ["--pretrain-epochs", "5", "--screen-epochs", "5", "--epochs", "3", "--members", "2"]
        with udocc.Detector(contamination=0.1, fit_args=fast) as d:
            d.fit(X)
            self.assertEqual(len(d.decision_scores_), 200)
            self.assertEqual(sum(int(v) for v in d.labels_), 20)  # the top 10 %
            s = d.decision_function([[0, 0, 0], [30, 30, 30]])
            self.assertLess(s[0], s[1])
            self.assertEqual([int(v) for v in d.predict([[0, 0, 0], [30, 30, 30]])], [0, 1])
            p = d.predict_proba([[0, 0, 0], [30, 30, 30]])
            self.assertAlmostEqual(float(p[0][0] + p[0][1]), 1.0)
            self.assertGreater(float(p[1][1]), 0.5)
            # The server scores the training rows as the fit did.
            again = d.decision_function(X[:20])
            for a, b in zip(again, d.decision_scores_[:20]):
                self.assertAlmostEqual(float(a), float(b), places=9)
            top = d.explain([[30, 0, 0]], n=1)
            self.assertEqual(top[0][0][0], "x1")
            self.assertEqual(d.model()["columns"], ["x1", "x2", "x3"])
            # Rows as dicts score as lists do; None is a missing cell, imputed.
            as_dicts = d.decision_function([{"x1": 0, "x2": 0, "x3": 0}, {"x3": 30, "x1": 30, "x2": 30}])
            self.assertEqual([float(v) for v in as_dicts], [float(v) for v in s])
            self.assertEqual(len(d.decision_function([{"x1": None, "x2": 1, "x3": 2}])), 1)
            with self.assertRaises(udocc.UdoccError) as e:
                d.score([[1, 2]])
            self.assertEqual(e.exception.status, 400)


if __name__ == "__main__":
    unittest.main()
