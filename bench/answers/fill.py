#!/usr/bin/python3
"""Answers a labels file as a user would, from the table's own labels.

Usage: fill.py LABELS.csv SCORES.csv

SCORES.csv is a fit's scores.csv of the same table, whose true_label column holds the
table's y. Every row of LABELS.csv whose anomaly cell is empty gets 1 or 0 from it; the
file is rewritten in place (standard library only).
"""
import csv
import sys

labels, scores = sys.argv[1], sys.argv[2]
with open(scores, newline="") as f:
    truth = {r["row"]: r["true_label"] for r in csv.DictReader(f)}
with open(labels, newline="") as f:
    reader = csv.DictReader(f)
    fields, rows = reader.fieldnames, list(reader)
for r in rows:
    if r["anomaly"] == "":
        r["anomaly"] = "1" if truth[r["row"]] in ("1", "1.0") else "0"
with open(labels + ".tmp", "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=fields)
    w.writeheader()
    w.writerows(rows)
import os
os.replace(labels + ".tmp", labels)
