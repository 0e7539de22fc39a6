"""Requests too big for the server to honour: oversized bodies, filters, order_by lists and
id lists, and names over MLflow's column limits. Each is refused with a 4xx and an MLflow
error body (`INVALID_PARAMETER_VALUE`), never a 5xx, and the server stays up."""

import http.client
import json
import select
import socket
import time
from urllib.parse import urlsplit

import pytest
import requests

from helpers import raises_code

API = "/api/2.0/mlflow"


def post_streaming(url: str, path: str, token: str | None, body: bytes, timeout: float = 120.0):
    """POSTs `body` with its Content-Length, watching for an answer while sending: a server
    may (and should) answer an oversized body before reading all of it, then close. Returns
    (status, parsed JSON body or None, bytes of the body actually sent)."""
    parts = urlsplit(url)
    head = [f"POST {path} HTTP/1.1", f"Host: {parts.netloc}", "Content-Type: application/json",
            f"Content-Length: {len(body)}", "Connection: close"]
    if token:
        head.append(f"Authorization: Bearer {token}")
    sock = socket.create_connection((parts.hostname, parts.port), timeout=timeout)
    try:
        sock.sendall(("\r\n".join(head) + "\r\n\r\n").encode())
        sent, chunk, deadline = 0, 1 << 16, time.monotonic() + timeout
        while time.monotonic() < deadline:
            readable, writable, _ = select.select([sock], [sock] if sent < len(body) else [], [], 1.0)
            if readable:
                break
            if writable:
                try:
                    sent += sock.send(body[sent:sent + chunk])
                except (BrokenPipeError, ConnectionResetError):
                    break  # the server stopped reading: its answer should be waiting
        resp = http.client.HTTPResponse(sock)
        resp.begin()
        data = resp.read()
        try:
            parsed = json.loads(data)
        except ValueError:
            parsed = None
        return resp.status, parsed, sent
    finally:
        sock.close()


def assert_healthy(server):
    assert requests.get(f"{server.url}/health", timeout=10).status_code == 200


@pytest.mark.runlens_only  # MLflow parses a body of any size
def test_oversized_body_is_refused_with_an_mlflow_error(server):
    # ~30 MB of small JSON values in a field experiments/search ignores.
    body = b'{"max_results": 10, "padding": [' + b"0," * 15_000_000 + b'0]}'
    status, parsed, sent = post_streaming(server.url, f"{API}/experiments/search",
                                          server.admin_token, body)
    assert 400 <= status < 500, (status, parsed)
    assert parsed is not None and parsed.get("error_code") == "INVALID_PARAMETER_VALUE", parsed
    assert isinstance(parsed.get("message"), str) and parsed["message"]
    assert_healthy(server)


def many_and_clauses(n: int) -> str:
    return " AND ".join(f"params.p{i} = 'x'" for i in range(n))


@pytest.mark.parametrize("case", [
    "filter-1100-and",  # MLflow's filter parser refuses it (too many tokens)
    # MLflow builds one join per key and SQLite refuses: 503 TEMPORARILY_UNAVAILABLE.
    pytest.param("order-by-70-keys", marks=pytest.mark.runlens_only),
])
def test_oversized_search_is_invalid_parameter_value(client, experiment, case):
    client.create_run(experiment)
    with raises_code("INVALID_PARAMETER_VALUE"):
        if case == "filter-1100-and":
            client.search_runs([experiment], many_and_clauses(1100))
        else:
            client.search_runs([experiment], order_by=[f"params.k{i} ASC" for i in range(70)])


# MLflow's filter parser refuses both (too many tokens).
@pytest.mark.parametrize("n", [10_001, 250_001])
def test_huge_run_id_in_list_is_invalid_parameter_value(client, experiment, n):
    client.create_run(experiment)
    ids = ", ".join(f"'{i:032x}'" for i in range(n)) if n > 10_001 else \
        ", ".join(f"'r{i}'" for i in range(n))  # short values: under any body limit
    with raises_code("INVALID_PARAMETER_VALUE"):
        client.search_runs([experiment], f"attributes.run_id IN ({ids})")


# MLflow searches 10,001 experiments and answers 503 (SQLite: too many SQL variables) for 250,001.
@pytest.mark.runlens_only
@pytest.mark.parametrize("n", [10_001, 250_001])
def test_huge_experiment_id_list_is_invalid_parameter_value(server, n):
    r = server.http.post(f"{server.url}{API}/runs/search",
                         json={"experiment_ids": [str(i) for i in range(n)]}, timeout=120)
    assert 400 <= r.status_code < 500, (r.status_code, r.text[:500])
    assert r.json()["error_code"] == "INVALID_PARAMETER_VALUE", r.text[:500]
    assert_healthy(server)


@pytest.mark.runlens_only  # MLflow's SQLite store takes any length (its column says 250)
def test_run_name_over_250_characters_is_invalid_parameter_value(client, experiment):
    with raises_code("INVALID_PARAMETER_VALUE"):
        client.create_run(experiment, run_name="n" * 251)
    run_id = client.create_run(experiment, run_name="n" * 250).info.run_id
    assert client.get_run(run_id).info.run_name == "n" * 250
    with raises_code("INVALID_PARAMETER_VALUE"):
        client.update_run(run_id, name="m" * 251)
    assert client.get_run(run_id).info.run_name == "n" * 250


@pytest.mark.runlens_only  # MLflow's SQLite store takes any length
def test_user_id_over_256_characters_is_invalid_parameter_value(server, experiment):
    r = server.http.post(f"{server.url}{API}/runs/create",
                         json={"experiment_id": experiment, "user_id": "u" * 257}, timeout=30)
    assert r.status_code == 400 and r.json()["error_code"] == "INVALID_PARAMETER_VALUE", r.text
    r = server.http.post(f"{server.url}{API}/runs/create",
                         json={"experiment_id": experiment, "user_id": "u" * 256}, timeout=30)
    assert r.status_code == 200, r.text
