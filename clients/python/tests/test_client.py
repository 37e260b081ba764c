"""Tests of the Python client. The offline ones run anywhere (fake servers on loopback); the service
ones need a running service: PORTAL_URL and PORTAL_KEY (an account with credits, webhook URLs on loopback
allowed), and PORTAL_LIMITED_URL for a real 429 (a service whose per-key window is one lookup). The
service's own test suite starts them (test/clients/python-client.test.ts) and runs:

    python3 -m unittest discover clients/python/tests

(the package is imported from the folder above this one, so no install is needed).
"""

from __future__ import annotations

import http.server
import json
import os
import re
import sys
import threading
import time
import typing
import unittest
from pathlib import Path
from typing import Callable, List, Optional, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import portal_lookup  # noqa: E402
from portal_lookup import (  # noqa: E402
    OPERATION_METHODS,
    OPERATIONS,
    PortalApiError,
    PortalClient,
    PortalNetworkError,
    RetryEvent,
    RetryPolicy,
    retry_after_seconds,
)
from portal_lookup import types as t  # noqa: E402

URL = os.environ.get("PORTAL_URL")
KEY = os.environ.get("PORTAL_KEY")
LIMITED_URL = os.environ.get("PORTAL_LIMITED_URL")
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")

Answer = Optional[Tuple[int, dict, str]]  # None: drop the connection


class FakeServer:
    """A loopback HTTP server answering request n (from 1) with answer(n, handler)."""

    def __init__(self, answer: Callable[[int, http.server.BaseHTTPRequestHandler], Answer]) -> None:
        self.requests: List[Tuple[str, str, dict]] = []
        fake = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def handle_any(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                if length:
                    self.rfile.read(length)
                fake.requests.append((self.command, self.path, {k.lower(): v for k, v in self.headers.items()}))
                a = answer(len(fake.requests), self)
                if a is None:
                    self.close_connection = True
                    self.connection.shutdown(2)
                    return
                status, headers, body = a
                data = body.encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                for k, v in headers.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_DELETE = handle_any

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


USAGE = json.dumps(
    {
        "data": {
            "plan": "free",
            "key_prefix": "k",
            "used": 1,
            "included": 50,
            "remaining": 49,
            "period_end": None,
            "overage_enabled": False,
            "overage_used": 0,
            "overage_usd": 0,
            "spend_limit_usd": None,
        },
        "meta": {"took_ms": 1},
    }
)
BATCH = json.dumps(
    {"data": [], "meta": {"count": 0, "succeeded": 0, "failed": 0, "cache_hits": 0, "credits": 0, "took_ms": 0}}
)


def rate_limited(retry_after: str) -> Answer:
    body = {"error": {"code": "rate_limited", "message": "Too many requests."}, "meta": {"took_ms": 0}}
    return 429, {"retry-after": retry_after}, json.dumps(body)


class GeneratedTypes(unittest.TestCase):
    def test_every_operation_has_its_method(self) -> None:
        self.assertEqual(set(OPERATION_METHODS), set(OPERATIONS))
        for name in OPERATION_METHODS.values():
            self.assertTrue(callable(getattr(PortalClient, name)), name)

    def test_types_resolve_and_name_the_release(self) -> None:
        self.assertEqual(portal_lookup.__version__, t.VERSION)
        for name in dir(t):
            value = getattr(t, name)
            if isinstance(value, type) and issubclass(value, dict):
                typing.get_type_hints(value)
        self.assertIn("rate_limited", t.ERROR_CODES)
        self.assertEqual(typing.get_type_hints(t.JobView)["status"], typing.Literal["queued", "running", "completed", "cancelled", "failed"])


class Retries(unittest.TestCase):
    def test_429_then_200_waits_retry_after(self) -> None:
        fake = FakeServer(lambda n, _: rate_limited("1") if n == 1 else (200, {}, USAGE))
        try:
            retries: List[RetryEvent] = []
            client = PortalClient(fake.url, "k", retry=RetryPolicy(on_retry=retries.append))
            started = time.monotonic()
            self.assertEqual(client.usage()["remaining"], 49)
            self.assertGreaterEqual(time.monotonic() - started, 0.95)
            self.assertEqual(len(fake.requests), 2)
            self.assertEqual([(r.status, r.wait, r.attempt) for r in retries], [(429, 1.0, 1)])
        finally:
            fake.close()

    def test_attempts_and_total_wait_are_bounded(self) -> None:
        fake = FakeServer(lambda n, _: rate_limited("0"))
        try:
            with self.assertRaises(PortalApiError) as caught:
                PortalClient(fake.url, "k").usage()
            self.assertEqual((caught.exception.code, caught.exception.status, caught.exception.retry_after), ("rate_limited", 429, 0))
            self.assertEqual(len(fake.requests), 4)
        finally:
            fake.close()
        slow = FakeServer(lambda n, _: rate_limited("45"))
        try:
            started = time.monotonic()
            with self.assertRaises(PortalApiError) as caught:
                PortalClient(slow.url, "k").usage()
            self.assertEqual(caught.exception.retry_after, 45)
            self.assertEqual(len(slow.requests), 1)
            self.assertLess(time.monotonic() - started, 1)
        finally:
            slow.close()

    def test_dropped_connection_retried_for_get_and_keyed_post_never_for_unkeyed_post(self) -> None:
        def answer(n: int, handler: http.server.BaseHTTPRequestHandler) -> Answer:
            if n in (1, 3, 5, 6):
                return None
            return 200, {}, USAGE if handler.path == "/v1/account" else BATCH

        fake = FakeServer(answer)
        try:
            retries: List[RetryEvent] = []
            client = PortalClient(fake.url, "k", retry=RetryPolicy(base_delay=0.01, on_retry=retries.append))
            self.assertEqual(client.usage()["plan"], "free")
            client.batch([{"zpid": "114303858"}])
            keys = [headers.get("idempotency-key") for _, _, headers in fake.requests[2:4]]
            self.assertRegex(keys[0] or "", UUID)
            self.assertEqual(keys[1], keys[0])
            self.assertEqual([(r.method, r.status) for r in retries], [("GET", None), ("POST", None)])
            with self.assertRaises(PortalNetworkError):
                client.create_watch(zpid="1", webhook_url="http://127.0.0.1:9/h", interval_hours=24)
            self.assertEqual(len(fake.requests), 5)
            with self.assertRaises(PortalNetworkError):
                client.batch([{"zpid": "1"}], idempotency_key=False)
            self.assertEqual(len(fake.requests), 6)
        finally:
            fake.close()

    def test_keyed_409_in_use_is_waited_out(self) -> None:
        in_use = {"error": {"code": "idempotency_key_in_use", "message": "Still running."}, "meta": {"took_ms": 0}}
        fake = FakeServer(lambda n, _: (409, {"retry-after": "0"}, json.dumps(in_use)) if n == 1 else (200, {}, BATCH))
        try:
            self.assertEqual(PortalClient(fake.url, "k").batch([{"zpid": "1"}])["meta"]["count"], 0)
            self.assertEqual(len(fake.requests), 2)
        finally:
            fake.close()

    def test_retry_after_forms_and_backoff(self) -> None:
        self.assertEqual(retry_after_seconds("3"), 3.0)
        self.assertAlmostEqual(retry_after_seconds("Thu, 01 Jan 1970 00:00:15 GMT", now=10.0) or 0, 5.0)
        self.assertIsNone(retry_after_seconds("soon"))
        self.assertIsNone(retry_after_seconds(None))
        policy = RetryPolicy(base_delay=0.1, max_delay=1.0)
        for _ in range(50):
            self.assertTrue(0.05 <= policy.backoff(1) <= 0.1)
            self.assertTrue(0.2 <= policy.backoff(3) <= 0.4)
            self.assertLessEqual(policy.backoff(20), 1.0)


@unittest.skipUnless(URL and KEY, "needs a running service: PORTAL_URL and PORTAL_KEY")
class AgainstTheService(unittest.TestCase):
    client: PortalClient

    @classmethod
    def setUpClass(cls) -> None:
        cls.client = PortalClient(URL or "", KEY or "")

    def test_lookup(self) -> None:
        answer = self.client.property(zpid="114303858")
        self.assertEqual(answer["data"]["zpid"], "114303858")
        self.assertIn(answer["meta"]["credits"], (0, 1))
        with self.assertRaises(PortalApiError) as caught:
            self.client.property(zpid="999999999")
        self.assertEqual((caught.exception.code, caught.exception.status), ("not_found", 404))
        self.assertTrue(caught.exception.request_id)

    def test_unknown_key(self) -> None:
        with self.assertRaises(PortalApiError) as caught:
            PortalClient(URL or "", "not_a_key_0000").usage()
        self.assertEqual((caught.exception.code, caught.exception.status), ("invalid_api_key", 401))

    def test_batch(self) -> None:
        answer = self.client.batch(
            [{"zpid": "114303858"}, "661 Lakeview Ave, San Francisco, CA 94112", {"zpid": "not-a-zpid"}]
        )
        self.assertEqual([r["ok"] for r in answer["data"]], [True, True, False])
        failure = answer["data"][2]
        self.assertFalse(failure["ok"])
        self.assertEqual(failure["error"]["code"], "bad_param")  # type: ignore[typeddict-item]
        self.assertEqual(answer["meta"]["count"], 3)
        # The same key and batch again: the same answer, billed once.
        first = self.client.batch([{"zpid": "15192198"}], idempotency_key="py-client-batch-1")
        used = self.client.usage()["used"]
        again = self.client.batch([{"zpid": "15192198"}], idempotency_key="py-client-batch-1")
        self.assertEqual(again["data"], first["data"])
        self.assertEqual(self.client.usage()["used"], used)

    def test_preview_charges_nothing(self) -> None:
        used = self.client.usage()["used"]
        preview = self.client.batch_preview([{"zpid": "999000105"}])
        self.assertEqual(preview["meta"]["credits"], 0)
        self.assertEqual(preview["data"][0]["would_cost"], 1)
        self.assertEqual(self.client.usage()["used"], used)

    def test_job_to_completion(self) -> None:
        items: List[t.BatchItem] = [{"zpid": "114303858"}, {"zpid": "2146993218"}, "nope"]
        created = self.client.create_job(items)
        self.assertEqual((created["status"], created["count"]), ("queued", 3))
        events = list(self.client.job_events(created["id"]))
        self.assertEqual(events[-1]["event"], "done")
        self.assertTrue(all(e["event"] == "progress" for e in events[:-1]))
        final = events[-1]["job"]
        self.assertEqual(
            (final["status"], final["done"], final["succeeded"], final["failed"]), ("completed", 3, 2, 1)
        )
        self.assertEqual(self.client.job(created["id"]), final)
        self.assertEqual(self.client.wait_for_job(created["id"]), final)
        results = list(self.client.job_results(created["id"]))
        self.assertEqual([(r["index"], r["ok"]) for r in results], [(0, True), (1, True), (2, False)])
        self.assertIn(created["id"], [j["id"] for j in self.client.list_jobs(limit=10)["data"]])
        self.assertIn(created["id"], [j["id"] for j in self.client.jobs(page_size=1)])
        self.assertEqual(self.client.cancel_job(created["id"])["status"], "completed")
        # The same Idempotency-Key again is the same job.
        a = self.client.create_job([{"zpid": "114303858"}], idempotency_key="py-client-job-1")
        b = self.client.create_job([{"zpid": "114303858"}], idempotency_key="py-client-job-1")
        self.assertEqual(a["id"], b["id"])
        self.client.wait_for_job(a["id"])

    def test_watch(self) -> None:
        watch = self.client.create_watch(zpid="15192198", webhook_url="http://127.0.0.1:9/hooks", interval_hours=24)
        self.assertEqual((watch["zpid"], watch["interval_hours"]), ("15192198", 24))
        self.assertIn(watch["id"], [w["id"] for w in self.client.watches()])
        self.assertEqual(self.client.watch(watch["id"])["id"], watch["id"])
        self.client.delete_watch(watch["id"])
        with self.assertRaises(PortalApiError) as caught:
            self.client.watch(watch["id"])
        self.assertEqual(caught.exception.code, "not_found")


@unittest.skipUnless(LIMITED_URL and KEY, "needs PORTAL_LIMITED_URL: a service allowing one lookup per window")
class RealRateLimit(unittest.TestCase):
    def test_429_retried(self) -> None:
        retries: List[RetryEvent] = []
        client = PortalClient(LIMITED_URL or "", KEY or "", retry=RetryPolicy(on_retry=retries.append))
        for _ in range(5):
            self.assertEqual(client.property(zpid="114303858")["data"]["zpid"], "114303858")
            if retries:
                break
        self.assertTrue(retries, "no 429 met in five lookups")
        self.assertEqual((retries[0].method, retries[0].status, retries[0].attempt), ("GET", 429, 1))
        self.assertTrue(1 <= retries[0].wait <= 2, retries[0].wait)
        # Without retries the refusal is the caller's: the service's code and wait.
        once = PortalClient(LIMITED_URL or "", KEY or "", retry=RetryPolicy(attempts=1))
        refused: Optional[PortalApiError] = None
        for _ in range(5):
            try:
                once.property(zpid="114303858")
            except PortalApiError as e:
                refused = e
                break
        self.assertIsNotNone(refused)
        assert refused is not None
        self.assertEqual((refused.code, refused.status), ("rate_limited", 429))
        self.assertLessEqual(refused.retry_after or 0, 2)


if __name__ == "__main__":
    unittest.main()
