#!/usr/bin/env python3
"""Prints fake, deterministic credential-shaped strings for rule examples.

The examples in rules/secrets.toml were produced by this script; none is a real
credential. Re-run it to see how each was built."""
import random
import string

rng = random.Random(20261122)
ALNUM = string.ascii_letters + string.digits


def r(n, alphabet=ALNUM):
    return "".join(rng.choice(alphabet) for _ in range(n))


HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
URL = ALNUM + "_-"
examples = {
    "aws_id": "AKIA" + r(16, string.ascii_uppercase + "234567"),
    "aws_secret": r(40, B64),
    "gh_classic": "ghp_" + r(36),
    "gh_fine": "github_pat_" + r(22) + "_" + r(59),
    "gitlab": "glpat-" + r(20, URL),
    "slack": "xoxb-" + r(12, string.digits) + "-" + r(13, string.digits) + "-" + r(24),
    "slack_hook": "https://hooks.slack.com/services/T" + r(10, string.ascii_uppercase + string.digits)
    + "/B" + r(10, string.ascii_uppercase + string.digits) + "/" + r(24),
    "stripe": "sk_live_" + r(24),
    "openai": "sk-proj-" + r(20, URL) + "T3BlbkFJ" + r(20, URL),
    "anthropic": "sk-ant-api03-" + r(93, URL) + "AA",
    "google": "AIza" + r(35, URL),
    "gocspx": "GOCSPX-" + r(28, URL),
    "hf": "hf_" + r(34, string.ascii_letters),
    "azure_storage": "AccountKey=" + r(86, B64) + "==",
    "azure_ad": r(3, ALNUM) + "8Q~" + r(34, ALNUM + "_~.-"),
    "twilio": "SK" + r(32, HEX),
    "sendgrid": "SG." + r(22, URL) + "." + r(43, URL),
    "npm": "npm_" + r(36),
    "pypi": "pypi-AgEIcHlwaS5vcmc" + r(60, URL),
    "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0." + r(43, URL),
    "digitalocean": "dop_v1_" + r(64, HEX),
    "shopify": "shpat_" + r(32, HEX),
    "databricks": "dapi" + r(32, HEX),
    "telegram": r(10, string.digits) + ":AA" + r(33, URL),
    "linear": "lin_api_" + r(40),
    "groq": "gsk_" + r(52),
    "replicate": "r8_" + r(37),
    "age": "AGE-SECRET-KEY-1" + r(58, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"),
    "mailgun": "key-" + r(32, HEX),
    "square": "sq0atp-" + r(22, URL),
    "doppler": "dp.pt." + r(43),
    "atlassian": "ATATT3xFfGF0" + r(120, URL),
    "pem_body": r(64, B64),
}
for k, v in examples.items():
    print(f"{k} = {v}")
