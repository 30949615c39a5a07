//! record 0007 as one table: how an HTTP answer (or a transport error) of one attempt is
//! classified into an [`AttemptOutcome`].

use super::outcome::{AttemptOutcome, Decline, Fatal, RetryReason};
use super::wire::parse_error;
use crate::transport::{HttpResponse, TransportError};
use std::time::Duration;

/// Parse `Retry-After` (delta-seconds; an HTTP date is ignored).
pub fn parse_retry_after(v: Option<&str>) -> Option<Duration> {
    let v = v?.trim();
    if let Ok(secs) = v.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    if let Ok(secs) = v.parse::<f64>() {
        if secs.is_finite() && secs >= 0.0 {
            return Some(Duration::from_millis((secs * 1000.0) as u64));
        }
    }
    None
}

/// A body that is, or says it is, JSON: an API's answer, however unreadable.
fn looks_like_json(resp: &HttpResponse) -> bool {
    let labelled = resp.header("content-type").is_some_and(|v| v.to_ascii_lowercase().contains("json"));
    labelled || serde_json::from_slice::<serde_json::Value>(&resp.body).is_ok()
}

/// record 0007, one table: how one attempt's result is to be handled.
///
/// An answer too large to read ([`TransportError::TooLarge`]) is an answer whose body
/// is unreadable: its status still decides (a 2xx or 500 may have executed: unknown,
/// resolved by search, never taken as "not sent"; a 409/429/503 is retried with the
/// same key; a 402 is a decline without details).
pub fn classify<T: serde::de::DeserializeOwned>(res: Result<HttpResponse, TransportError>) -> AttemptOutcome<T> {
    let (resp, too_large) = match res {
        Ok(r) => (r, false),
        Err(TransportError::TooLarge(r)) => (*r, true),
        Err(TransportError::Other(m)) => return AttemptOutcome::Fatal(Fatal::Config(m)),
        Err(e) => return AttemptOutcome::Retry { reason: RetryReason::Transport(e), retry_after: None },
    };
    let unread = || format!("the answer is larger than {} bytes and was not read", crate::transport::MAX_ANSWER_BYTES);
    let replayed = resp.header("idempotent-replayed").is_some_and(|v| v.eq_ignore_ascii_case("true"));
    let retry_after = parse_retry_after(resp.header("retry-after"));
    match resp.status {
        200..=299 if too_large => AttemptOutcome::Unknown { status: resp.status, replayed, message: unread() },
        200..=299 => match serde_json::from_slice::<T>(&resp.body) {
            Ok(value) => AttemptOutcome::Ok { value, replayed },
            // Not JSON at all and not labelled JSON: a web page, not a PSP's answer.
            Err(_) if !looks_like_json(&resp) => {
                let start: String = String::from_utf8_lossy(&resp.body).trim_start().chars().take(60).collect();
                AttemptOutcome::Fatal(Fatal::NotAPsp(resp.status, start))
            }
            // Executed, but we cannot read the answer: treat as unknown.
            Err(e) => AttemptOutcome::Unknown {
                status: resp.status,
                replayed,
                message: format!("unreadable success body: {e}"),
            },
        },
        402 => {
            let err = parse_error(&resp.body);
            let pi = err.payment_intent.clone().map(|b| *b);
            AttemptOutcome::Declined {
                decline: Decline {
                    code: err.decline_code.clone().or(err.code.clone()).unwrap_or_else(|| "card_declined".into()),
                    message: err.message.clone().unwrap_or_else(|| "The card was declined.".into()),
                    payment_intent: pi,
                },
                replayed,
            }
        }
        400 => {
            let err = parse_error(&resp.body);
            if err.error_type.as_deref() == Some("idempotency_error") {
                AttemptOutcome::Fatal(Fatal::IdempotencyMismatch(err))
            } else {
                AttemptOutcome::Fatal(Fatal::BadRequest(err))
            }
        }
        401 | 403 => AttemptOutcome::Fatal(Fatal::Auth(parse_error(&resp.body))),
        404 => AttemptOutcome::Fatal(Fatal::NotFound(parse_error(&resp.body))),
        409 => {
            let err = parse_error(&resp.body);
            if err.error_type.as_deref() == Some("idempotency_error") && err.code.as_deref() != Some("idempotency_key_in_use") {
                AttemptOutcome::Fatal(Fatal::IdempotencyMismatch(err))
            } else {
                AttemptOutcome::Retry { reason: RetryReason::InProgress, retry_after }
            }
        }
        429 => AttemptOutcome::Retry { reason: RetryReason::RateLimited, retry_after },
        502..=504 => AttemptOutcome::Retry { reason: RetryReason::Unavailable(resp.status), retry_after },
        s @ 500..=599 => AttemptOutcome::Unknown {
            status: s,
            replayed,
            message: if too_large { unread() } else { parse_error(&resp.body).message.unwrap_or_default() },
        },
        s => AttemptOutcome::Fatal(Fatal::Unexpected(s, parse_error(&resp.body))),
    }
}


#[cfg(test)]
mod tests {
    use super::*;
    use crate::psp::{PaymentIntent, PiStatus};

    fn resp(status: u16, headers: &[(&str, &str)], body: &str) -> Result<HttpResponse, TransportError> {
        Ok(HttpResponse {
            status,
            headers: headers.iter().map(|(k, v)| (k.to_ascii_lowercase(), v.to_string())).collect(),
            body: body.as_bytes().to_vec(),
        })
    }
    const PI: &str = r#"{"id":"pi_1","object":"payment_intent","amount":500,"currency":"jpy","status":"succeeded","metadata":{"checkout_key":"k"}}"#;

    #[test]
    fn success_and_replay() {
        match classify::<PaymentIntent>(resp(200, &[], PI)) {
            AttemptOutcome::Ok { value, replayed } => {
                assert_eq!(value.id, "pi_1");
                assert_eq!(value.pi_status(), PiStatus::Succeeded);
                assert_eq!(value.metadata["checkout_key"], "k");
                assert!(!replayed);
            }
            o => panic!("{o:?}"),
        }
        let o = classify::<PaymentIntent>(resp(200, &[("Idempotent-Replayed", "true")], PI));
        assert!(o.replayed());
        assert_eq!(o.label(), "replayed");
    }

    #[test]
    fn retryable_transport_errors() {
        for e in [
            TransportError::ConnectRefused("x".into()),
            TransportError::ConnectTimeout,
            TransportError::Timeout,
            TransportError::Reset("x".into()),
        ] {
            assert!(matches!(classify::<PaymentIntent>(Err(e)), AttemptOutcome::Retry { .. }));
        }
        assert!(matches!(
            classify::<PaymentIntent>(Err(TransportError::Other("bad url".into()))),
            AttemptOutcome::Fatal(Fatal::Config(_))
        ));
    }

    #[test]
    fn retryable_statuses_honour_retry_after() {
        let body = r#"{"error":{"type":"idempotency_error","code":"idempotency_key_in_use","message":"busy"}}"#;
        match classify::<PaymentIntent>(resp(409, &[("Retry-After", "2")], body)) {
            AttemptOutcome::Retry { reason: RetryReason::InProgress, retry_after } => {
                assert_eq!(retry_after, Some(Duration::from_secs(2)))
            }
            o => panic!("{o:?}"),
        }
        assert!(matches!(
            classify::<PaymentIntent>(resp(429, &[], "{}")),
            AttemptOutcome::Retry { reason: RetryReason::RateLimited, retry_after: None }
        ));
        for s in [502, 503, 504] {
            assert!(matches!(
                classify::<PaymentIntent>(resp(s, &[], "")),
                AttemptOutcome::Retry { reason: RetryReason::Unavailable(x), .. } if x == s
            ));
        }
    }

    #[test]
    fn non_retryable() {
        let decline = r#"{"error":{"type":"card_error","code":"card_declined","decline_code":"insufficient_funds","message":"Your card has insufficient funds."}}"#;
        match classify::<PaymentIntent>(resp(402, &[], decline)) {
            AttemptOutcome::Declined { decline, replayed: false } => {
                assert_eq!(decline.code, "insufficient_funds");
                assert!(decline.message.contains("insufficient"));
            }
            o => panic!("{o:?}"),
        }
        let bad = r#"{"error":{"type":"invalid_request_error","message":"Missing amount","param":"amount"}}"#;
        match classify::<PaymentIntent>(resp(400, &[], bad)) {
            AttemptOutcome::Fatal(Fatal::BadRequest(e)) => assert_eq!(e.param.as_deref(), Some("amount")),
            o => panic!("{o:?}"),
        }
        let idem = r#"{"error":{"type":"idempotency_error","message":"Keys for idempotent requests can only be used with the same parameters (amount)"}}"#;
        assert!(matches!(
            classify::<PaymentIntent>(resp(400, &[], idem)),
            AttemptOutcome::Fatal(Fatal::IdempotencyMismatch(_))
        ));
        assert!(matches!(classify::<PaymentIntent>(resp(401, &[], "{}")), AttemptOutcome::Fatal(Fatal::Auth(_))));
        assert!(matches!(classify::<PaymentIntent>(resp(404, &[], "{}")), AttemptOutcome::Fatal(Fatal::NotFound(_))));
    }

    #[test]
    fn replayed_500_is_unknown() {
        let o = classify::<PaymentIntent>(resp(500, &[("Idempotent-Replayed", "true")], r#"{"error":{"type":"api_error","message":"boom"}}"#));
        match o {
            AttemptOutcome::Unknown { status: 500, replayed: true, ref message } => assert_eq!(message, "boom"),
            ref o => panic!("{o:?}"),
        }
        assert_eq!(o.label(), "replayed_500");
        // A 2xx JSON answer we cannot read: executed but unreadable -> unknown, never
        // "not charged" (labelled JSON, or JSON of another shape).
        let json = [("content-type", "application/json")];
        assert!(matches!(classify::<PaymentIntent>(resp(200, &json, "{\"id\":")), AttemptOutcome::Unknown { .. }));
        assert!(matches!(classify::<PaymentIntent>(resp(200, &[], "{\"object\":\"list\"}")), AttemptOutcome::Unknown { .. }));
        // A 2xx that is not JSON at all, unlabelled: a web page, not a PSP; nothing ran.
        let page = classify::<PaymentIntent>(resp(200, &[("content-type", "text/html")], "<html>hi</html>"));
        assert!(matches!(page, AttemptOutcome::Fatal(Fatal::NotAPsp(200, _))), "{page:?}");
        assert!(page.executed_nothing());
    }

    #[test]
    fn an_answer_too_large_to_read_is_classified_by_its_status_never_as_not_sent() {
        let big = |status: u16| {
            Err::<HttpResponse, _>(TransportError::TooLarge(Box::new(HttpResponse {
                status,
                headers: vec![("idempotent-replayed".into(), "true".into())],
                body: vec![],
            })))
        };
        for s in [200u16, 201, 500] {
            match classify::<PaymentIntent>(big(s)) {
                AttemptOutcome::Unknown { status, replayed: true, message } => {
                    assert_eq!(status, s);
                    assert!(message.contains("larger than"), "{message}");
                }
                o => panic!("{s}: {o:?}"),
            }
        }
        assert!(matches!(classify::<PaymentIntent>(big(409)), AttemptOutcome::Retry { reason: RetryReason::InProgress, .. }));
        assert!(matches!(classify::<PaymentIntent>(big(503)), AttemptOutcome::Retry { reason: RetryReason::Unavailable(503), .. }));
        assert!(matches!(classify::<PaymentIntent>(big(402)), AttemptOutcome::Declined { .. }));
        let reason = RetryReason::Transport(TransportError::TooLarge(Box::new(HttpResponse { status: 200, headers: vec![], body: vec![] })));
        assert!(!reason.never_sent() && !reason.unreachable());
    }

    #[test]
    fn retry_after_parsing() {
        assert_eq!(parse_retry_after(Some("3")), Some(Duration::from_secs(3)));
        assert_eq!(parse_retry_after(Some("0.5")), Some(Duration::from_millis(500)));
        assert_eq!(parse_retry_after(Some("Wed, 21 Oct 2015 07:28:00 GMT")), None);
        assert_eq!(parse_retry_after(None), None);
    }
}
