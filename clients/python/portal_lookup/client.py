"""A client of the Property lookup API's REST contract v1, on the standard library (urllib and json).

Every operation of the OpenAPI document has its method (``OPERATION_METHODS``): a home, a batch and its
cost preview, lookup jobs (made, read, listed, cancelled, their NDJSON results and their server-sent events
as iterators), watches, webhook deliveries (listed, redelivered) and the account's usage. Answers are the generated TypedDicts of ``types.py``.

A method returns the typed answer or raises one of three errors: ``PortalApiError`` (the service's error
envelope, with the spec's code), ``PortalHttpError`` (an answer without the envelope: a proxy's page, an
empty body; no code is made up for it) or ``PortalNetworkError`` (no answer read at all).

Retries (``RetryPolicy``): a 429 or 503 (or a keyed request's 409 ``idempotency_key_in_use``) is sent again after the wait its ``retry-after`` asks for, a failed
connection after an exponential backoff with jitter, within a bound of attempts and of total wait; a POST is
sent again only when it carries an ``Idempotency-Key`` (batches and jobs carry a new random one per call by
default, the same on each of that call's attempts), so a retry never makes a second job nor bills twice.
"""

from __future__ import annotations

import email.utils
import json
import random
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterator, List, Literal, Mapping, Optional, TypedDict, Union, cast

from .types import (
    VERSION,
    AccountChargesResponse,
    AccountUsage,
    AccountUsageDays,
    BatchItem,
    BatchItemFailure,
    BatchItemSuccess,
    BatchPreviewResponse,
    BatchResponse,
    ChargeLine,
    ErrorCode,
    HistoryResponse,
    JobCreatedData,
    JobListResponse,
    JobView,
    PropertyResponse,
    ServiceStatus,
    Watch,
    WebhookDelivery,
    WebhookDeliveryListResponse,
)

#: One result of a batch or of a job: a success or a failure, told apart by ``ok``.
BatchItemResult = Union[BatchItemSuccess, BatchItemFailure]

#: The client method of each operation of the OpenAPI document (``types.OPERATIONS``).
OPERATION_METHODS: Dict[str, str] = {
    "lookupProperty": "property",
    "getPropertyHistory": "property_history",
    "lookupProperties": "batch",  # and batch_preview (dry_run=true)
    "createLookupJob": "create_job",
    "listLookupJobs": "list_jobs",
    "getLookupJob": "job",
    "cancelLookupJob": "cancel_job",
    "getLookupJobResults": "job_results",
    "streamLookupJobEvents": "job_events",
    "createWatch": "create_watch",
    "listWatches": "watches",
    "getWatch": "watch",
    "deleteWatch": "delete_watch",
    "listWebhookDeliveries": "list_webhook_deliveries",
    "redeliverWebhook": "redeliver_webhook",
    "getAccount": "usage",
    "getAccountUsage": "usage_days",
    "getAccountCharges": "list_charges",
    "getServiceStatus": "status",
}


class JobEvent(TypedDict):
    """One event of a job's stream: ``progress`` with the job now and on each change, then ``done``."""

    event: Literal["progress", "done"]
    job: JobView


class PortalError(Exception):
    """Any failure of a call."""


class PortalApiError(PortalError):
    """An answer in the error envelope: the spec's code and message, the HTTP status, and any wait."""

    def __init__(self, status: int, error: Mapping[str, Any], headers: Mapping[str, str]) -> None:
        super().__init__(error.get("message", ""))
        self.code: ErrorCode = cast(ErrorCode, error["code"])
        self.message: str = str(error.get("message", ""))
        self.status = status
        self.details: Optional[Dict[str, Any]] = error.get("details")
        #: Seconds from the retry-after header, when the service sent one.
        self.retry_after: Optional[float] = _retry_after_seconds(headers.get("retry-after"))
        self.request_id: Optional[str] = headers.get("x-request-id")


class PortalHttpError(PortalError):
    """An HTTP answer that is not the service's envelope (a proxy's 502 page, an empty 413)."""

    def __init__(self, status: int, body: str, headers: Mapping[str, str]) -> None:
        super().__init__(f"HTTP {status} without the service's error envelope")
        self.status = status
        self.body = body
        self.request_id: Optional[str] = headers.get("x-request-id")


class PortalNetworkError(PortalError):
    """No answer was read (connection refused or reset, DNS, a timeout): the cause is chained."""

    def __init__(self, method: str, path: str, cause: BaseException) -> None:
        super().__init__(f"{method} {path}: no answer read ({cause})")
        self.cause = cause


@dataclass
class RetryEvent:
    """What a retry is about to do, for logs and tests."""

    method: str
    url: str
    #: The attempt that failed, from 1.
    attempt: int
    #: The status answered (429, 503, or 409 to a keyed request), or None when no answer was read.
    status: Optional[int]
    #: The wait before the next attempt, seconds: retry-after's, else the backoff's.
    wait: float


@dataclass
class RetryPolicy:
    """How 429/503 answers and failed connections are retried."""

    #: Attempts in all, the first one included; 1 never retries.
    attempts: int = 4
    #: The most time spent waiting between one call's attempts, seconds: a longer retry-after is the caller's.
    max_total_wait: float = 20.0
    #: The backoff's first wait after a failed connection (or a 429/503 without retry-after), seconds.
    base_delay: float = 0.25
    #: The backoff's longest single wait, seconds.
    max_delay: float = 8.0
    #: Told of each retry before its wait.
    on_retry: Optional[Callable[[RetryEvent], None]] = field(default=None, repr=False)

    def backoff(self, attempt: int) -> float:
        """The n-th backoff (n from 1): base x 2^(n-1), at most max_delay, drawn between half of it and all."""
        full = min(self.max_delay, self.base_delay * 2 ** (attempt - 1))
        return full / 2 + random.random() * (full / 2)


NO_RETRY = RetryPolicy(attempts=1)


def _retry_after_seconds(value: Optional[str], now: Optional[float] = None) -> Optional[float]:
    """retry-after as seconds: delta-seconds or an HTTP date; None when absent or unreadable."""
    if value is None or value.strip() == "":
        return None
    text = value.strip()
    if text.isdigit():
        return float(text)
    try:
        at = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    return max(0.0, at.timestamp() - (time.time() if now is None else now))


retry_after_seconds = _retry_after_seconds

_SAFE_METHODS = {"GET", "HEAD", "OPTIONS", "PUT", "DELETE"}


def _query_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


class _Answer:
    """A successful answer: status, headers, and the open response (its body not yet read)."""

    def __init__(self, response: Any) -> None:
        self.response = response
        self.status: int = response.status
        self.headers: Dict[str, str] = {k.lower(): v for k, v in response.headers.items()}

    def json(self) -> Any:
        try:
            text = self.response.read().decode("utf-8")
        finally:
            self.response.close()
        return json.loads(text) if text else None


class PortalClient:
    """The REST API v1. ``base_url`` is the service's origin, e.g. http://127.0.0.1:4000."""

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        timeout: float = 60.0,
        retry: Optional[RetryPolicy] = None,
        urlopen: Callable[..., Any] = urllib.request.urlopen,
        user_agent: str = f"portal-lookup-python/{VERSION}",
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.timeout = timeout
        self.retry = retry if retry is not None else RetryPolicy()
        self._urlopen = urlopen
        self.user_agent = user_agent

    # -- transport ------------------------------------------------------------------------------------

    def _send(
        self,
        method: str,
        path: str,
        *,
        query: Optional[Mapping[str, Any]] = None,
        body: Any = None,
        headers: Optional[Mapping[str, str]] = None,
        idempotent: Optional[bool] = None,
    ) -> _Answer:
        """One call with the retry rules; a 2xx answer, else the error it makes."""
        url = self.base_url + path
        pairs = [(k, _query_value(v)) for k, v in (query or {}).items() if v is not None]
        if pairs:
            url += "?" + urllib.parse.urlencode(pairs)
        all_headers = {"x-api-key": self.api_key, "accept": "application/json", "user-agent": self.user_agent}
        data = None
        if body is not None:
            data = json.dumps(body).encode("utf-8")
            all_headers["content-type"] = "application/json"
        all_headers.update(headers or {})
        has_key = any(k.lower() == "idempotency-key" for k in all_headers)
        retryable = idempotent if idempotent is not None else (method in _SAFE_METHODS or has_key)
        policy = self.retry
        waited = 0.0
        attempt = 0
        while True:
            attempt += 1
            last = not retryable or attempt >= policy.attempts
            request = urllib.request.Request(url, data=data, headers=all_headers, method=method)
            status: Optional[int] = None
            try:
                response = self._urlopen(request, timeout=self.timeout)
                return _Answer(response)
            except urllib.error.HTTPError as e:
                status = e.code
                answer_headers = {k.lower(): v for k, v in (e.headers or {}).items()}
                # 429 and 503; and 409 with retry-after to a keyed request (idempotency_key_in_use: the first
                # attempt under the key still runs, and a later one gets its answer).
                waited_out = status in (429, 503) or (status == 409 and has_key and "retry-after" in answer_headers)
                if last or not waited_out:
                    raise self._error(e, answer_headers) from None
                asked = _retry_after_seconds(answer_headers.get("retry-after"))
                wait = asked if asked is not None else policy.backoff(attempt)
                if waited + wait > policy.max_total_wait:
                    raise self._error(e, answer_headers) from None
                e.close()
            except (urllib.error.URLError, ConnectionError, socket.timeout, TimeoutError, OSError) as e:
                cause = e.reason if isinstance(e, urllib.error.URLError) and isinstance(e.reason, BaseException) else e
                if last:
                    raise PortalNetworkError(method, path, cause) from e
                wait = policy.backoff(attempt)
                if waited + wait > policy.max_total_wait:
                    raise PortalNetworkError(method, path, cause) from e
            if policy.on_retry:
                policy.on_retry(RetryEvent(method=method, url=url, attempt=attempt, status=status, wait=wait))
            time.sleep(wait)
            waited += wait

    @staticmethod
    def _error(e: urllib.error.HTTPError, headers: Mapping[str, str]) -> PortalError:
        try:
            text = e.read().decode("utf-8", "replace")
        except OSError:
            text = ""
        finally:
            e.close()
        try:
            parsed = json.loads(text)
        except ValueError:
            parsed = None
        if isinstance(parsed, dict) and isinstance(parsed.get("error"), dict) and isinstance(
            parsed["error"].get("code"), str
        ):
            return PortalApiError(e.code, parsed["error"], headers)
        return PortalHttpError(e.code, text, headers)

    def _lines(self, answer: _Answer, method: str, path: str) -> Iterator[str]:
        """The body's lines as they arrive, without their line ends."""
        try:
            while True:
                try:
                    raw = answer.response.readline()
                except (OSError, ValueError) as e:
                    raise PortalNetworkError(method, path, e) from e
                if not raw:
                    return
                yield raw.decode("utf-8").rstrip("\r\n")
        finally:
            answer.response.close()

    @staticmethod
    def _key(idempotency_key: Union[str, bool, None]) -> Dict[str, str]:
        if idempotency_key is False:
            return {}
        if idempotency_key is None or idempotency_key is True:
            return {"Idempotency-Key": str(uuid.uuid4())}
        return {"Idempotency-Key": idempotency_key}

    # -- lookups --------------------------------------------------------------------------------------

    def property(
        self,
        *,
        url: Optional[str] = None,
        zpid: Optional[str] = None,
        address: Optional[str] = None,
        **options: Any,
    ) -> PropertyResponse:
        """One home (GET /v1/portal/property): exactly one of url, zpid, address; options status, raw, max_age, stale."""
        query = {"url": url, "zpid": zpid, "address": address, **options}
        return cast(PropertyResponse, self._send("GET", "/v1/portal/property", query=query).json())

    def property_history(
        self,
        *,
        url: Optional[str] = None,
        zpid: Optional[str] = None,
        address: Optional[str] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
    ) -> HistoryResponse:
        """One page of a home's history, newest first (GET /v1/portal/property/history): free, from the service's records."""
        query = {"url": url, "zpid": zpid, "address": address, "limit": limit, "cursor": cursor}
        return cast(HistoryResponse, self._send("GET", "/v1/portal/property/history", query=query).json())

    def batch(
        self, items: List[BatchItem], *, idempotency_key: Union[str, bool, None] = None, **options: Any
    ) -> BatchResponse:
        """Up to 50 homes (POST /v1/portal/batch); a failed item is in its place, never raised.

        It carries an Idempotency-Key (a new random UUID unless given; False sends none), so a retry is
        answered the first answer, billed once.
        """
        body = {**options, "items": items}
        answer = self._send("POST", "/v1/portal/batch", body=body, headers=self._key(idempotency_key))
        return cast(BatchResponse, answer.json())

    def batch_preview(self, items: List[BatchItem], **options: Any) -> BatchPreviewResponse:
        """What the batch would cost now (POST /v1/portal/batch?dry_run=true); nothing looked up, charged or held."""
        body = {**options, "items": items}
        answer = self._send("POST", "/v1/portal/batch", query={"dry_run": True}, body=body, idempotent=True)
        return cast(BatchPreviewResponse, answer.json())

    # -- jobs -----------------------------------------------------------------------------------------

    def create_job(
        self, items: List[BatchItem], *, idempotency_key: Union[str, bool, None] = None, **options: Any
    ) -> JobCreatedData:
        """A lookup job of 1 to 10,000 homes (POST /v1/portal/jobs): its id, queued; it runs in the background.

        Options: webhook_url, status, raw, max_age, stale. It carries an Idempotency-Key (a new random UUID
        unless given): a retry never makes a second job.
        """
        body = {**options, "items": items}
        answer = self._send("POST", "/v1/portal/jobs", body=body, headers=self._key(idempotency_key))
        return cast(JobCreatedData, answer.json()["data"])

    def job(self, job_id: str) -> JobView:
        """A job as it is now (GET /v1/portal/jobs/{id})."""
        return cast(JobView, self._send("GET", f"/v1/portal/jobs/{_segment(job_id)}").json()["data"])

    def list_jobs(self, *, limit: Optional[int] = None, cursor: Optional[str] = None) -> JobListResponse:
        """One page of the account's jobs, newest first (GET /v1/portal/jobs); meta.next_cursor asks for the next."""
        answer = self._send("GET", "/v1/portal/jobs", query={"limit": limit, "cursor": cursor})
        return cast(JobListResponse, answer.json())

    def jobs(self, page_size: int = 100) -> Iterator[JobView]:
        """Every job of the account, newest first, a page at a time."""
        cursor: Optional[str] = None
        while True:
            page = self.list_jobs(limit=page_size, cursor=cursor)
            yield from page["data"]
            cursor = page["meta"]["next_cursor"]
            if not cursor:
                return

    def cancel_job(self, job_id: str) -> JobView:
        """Cancels what has not started (DELETE /v1/portal/jobs/{id}): the job, cancelled."""
        return cast(JobView, self._send("DELETE", f"/v1/portal/jobs/{_segment(job_id)}").json()["data"])

    def job_results(self, job_id: str) -> Iterator[BatchItemResult]:
        """The job's results so far, in item order, one at a time as the NDJSON arrives (GET …/results)."""
        path = f"/v1/portal/jobs/{_segment(job_id)}/results"
        answer = self._send("GET", path, query={"format": "ndjson"})
        for line in self._lines(answer, "GET", path):
            if line.strip():
                yield cast(BatchItemResult, json.loads(line))

    def job_events(self, job_id: str) -> Iterator[JobEvent]:
        """The job's server-sent events (GET …/events): progress now and on each change, then done; heartbeats skipped."""
        path = f"/v1/portal/jobs/{_segment(job_id)}/events"
        answer = self._send("GET", path, headers={"accept": "text/event-stream"})
        event = "message"
        data: List[str] = []
        lines = self._lines(answer, "GET", path)
        try:
            for line in lines:
                if line == "":
                    if data and event in ("progress", "done"):
                        yield JobEvent(event=cast(Literal["progress", "done"], event), job=json.loads("\n".join(data)))
                        if event == "done":
                            return
                    event, data = "message", []
                elif line.startswith(":"):
                    continue  # a comment: the heartbeat
                else:
                    name, _, value = line.partition(":")
                    value = value[1:] if value.startswith(" ") else value
                    if name == "event":
                        event = value
                    elif name == "data":
                        data.append(value)
        finally:
            lines.close()

    def wait_for_job(self, job_id: str) -> JobView:
        """Follows the job's events to its end: the final job (completed, cancelled or failed)."""
        last: Optional[JobView] = None
        for e in self.job_events(job_id):
            last = e["job"]
            if e["event"] == "done":
                return e["job"]
        return last if last is not None and last.get("finished_at") else self.job(job_id)

    # -- watches --------------------------------------------------------------------------------------

    def create_watch(
        self,
        *,
        webhook_url: str,
        interval_hours: float,
        url: Optional[str] = None,
        zpid: Optional[str] = None,
        address: Optional[str] = None,
    ) -> Watch:
        """Watches a home (POST /v1/portal/watches). The route takes no Idempotency-Key: never retried."""
        locator = {k: v for k, v in (("url", url), ("zpid", zpid), ("address", address)) if v is not None}
        body = {**locator, "webhook_url": webhook_url, "interval_hours": interval_hours}
        return cast(Watch, self._send("POST", "/v1/portal/watches", body=body).json()["data"])

    def watches(self) -> List[Watch]:
        """The account's watches (GET /v1/portal/watches)."""
        return cast(List[Watch], self._send("GET", "/v1/portal/watches").json()["data"])

    def watch(self, watch_id: str) -> Watch:
        """One watch (GET /v1/portal/watches/{id})."""
        return cast(Watch, self._send("GET", f"/v1/portal/watches/{_segment(watch_id)}").json()["data"])

    def delete_watch(self, watch_id: str) -> None:
        """Ends a watch (DELETE /v1/portal/watches/{id}, 204)."""
        self._send("DELETE", f"/v1/portal/watches/{_segment(watch_id)}").json()

    # -- webhook deliveries ---------------------------------------------------------------------------

    def list_webhook_deliveries(
        self, *, limit: Optional[int] = None, cursor: Optional[str] = None
    ) -> WebhookDeliveryListResponse:
        """One page of the account's delivery attempts, newest first (GET /v1/webhooks/deliveries)."""
        answer = self._send("GET", "/v1/webhooks/deliveries", query={"limit": limit, "cursor": cursor})
        return cast(WebhookDeliveryListResponse, answer.json())

    def webhook_deliveries(self, page_size: int = 100) -> Iterator[WebhookDelivery]:
        """Every delivery attempt the account has (the last 7 days), newest first, a page at a time."""
        cursor: Optional[str] = None
        while True:
            page = self.list_webhook_deliveries(limit=page_size, cursor=cursor)
            yield from page["data"]
            cursor = page["meta"]["next_cursor"]
            if not cursor:
                return

    def redeliver_webhook(self, delivery_id: str) -> WebhookDelivery:
        """Sends an attempt's event again, now, with the same webhook-id (POST …/{id}/redeliver, 202). Never retried."""
        path = f"/v1/webhooks/deliveries/{_segment(delivery_id)}/redeliver"
        return cast(WebhookDelivery, self._send("POST", path).json()["data"])

    # -- account --------------------------------------------------------------------------------------

    def usage(self) -> AccountUsage:
        """The caller's plan and usage (GET /v1/account)."""
        return cast(AccountUsage, self._send("GET", "/v1/account").json()["data"])

    def usage_days(self, *, from_: Optional[str] = None, to: Optional[str] = None) -> AccountUsageDays:
        """The account's lookups per UTC day (GET /v1/account/usage; dates YYYY-MM-DD, inclusive)."""
        answer = self._send("GET", "/v1/account/usage", query={"from": from_, "to": to})
        return cast(AccountUsageDays, answer.json())

    def list_charges(self, *, limit: Optional[int] = None, cursor: Optional[str] = None) -> AccountChargesResponse:
        """One page of the account's charges, newest first (GET /v1/account/charges)."""
        answer = self._send("GET", "/v1/account/charges", query={"limit": limit, "cursor": cursor})
        return cast(AccountChargesResponse, answer.json())

    def charges(self, page_size: int = 100) -> Iterator[ChargeLine]:
        """Every charge the account's ledger keeps, newest first, a page at a time."""
        cursor: Optional[str] = None
        while True:
            page = self.list_charges(limit=page_size, cursor=cursor)
            yield from page["data"]
            cursor = page["meta"]["next_cursor"]
            if not cursor:
                return
    # -- the service ----------------------------------------------------------------------------------

    def status(self) -> ServiceStatus:
        """The service's own public figures, last hour and last 24 hours (GET /v1/status; needs no key)."""
        return cast(ServiceStatus, self._send("GET", "/v1/status").json()["data"])


def _segment(value: str) -> str:
    return urllib.parse.quote(value, safe="")
