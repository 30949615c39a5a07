//! HTTPS to a PSP goes through the system's OpenSSL (docs/decisions/0109-tls-openssl.md).
//! These tests run a real TLS server on loopback (OpenSSL's acceptor, a certificate made
//! here) and check the two facts a store depends on: a PSP whose certificate this machine
//! does not trust never receives a byte of the request (not the secret key, not the
//! payment), and the attempt is one that never reached the PSP, so the same key can be
//! retried safely; a trusted certificate carries the request.

use openssl::asn1::Asn1Time;
use openssl::hash::MessageDigest;
use openssl::pkey::{PKey, Private};
use openssl::rsa::Rsa;
use openssl::ssl::{SslAcceptor, SslMethod};
use openssl::x509::extension::SubjectAlternativeName;
use openssl::x509::{X509NameBuilder, X509};
use paydesk_register::psp::{classify, AttemptOutcome, PaymentIntent, PspClient, RetryReason};
use paydesk_register::transport::{Transport, TransportError};
use paydesk_register::{AttemptKind, HttpTransport};
use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::Arc;
use std::time::Duration;

/// A self-signed certificate for `localhost`, valid today.
fn self_signed() -> (X509, PKey<Private>) {
    let key = PKey::from_rsa(Rsa::generate(2048).unwrap()).unwrap();
    let mut name = X509NameBuilder::new().unwrap();
    name.append_entry_by_text("CN", "localhost").unwrap();
    let name = name.build();
    let mut b = X509::builder().unwrap();
    b.set_version(2).unwrap();
    b.set_subject_name(&name).unwrap();
    b.set_issuer_name(&name).unwrap();
    b.set_pubkey(&key).unwrap();
    b.set_not_before(&Asn1Time::days_from_now(0).unwrap()).unwrap();
    b.set_not_after(&Asn1Time::days_from_now(1).unwrap()).unwrap();
    let san = SubjectAlternativeName::new().dns("localhost").build(&b.x509v3_context(None, None)).unwrap();
    b.append_extension(san).unwrap();
    b.sign(&key, MessageDigest::sha256()).unwrap();
    (b.build(), key)
}

/// What the TLS server saw of its one connection.
#[derive(Debug)]
enum Seen {
    /// The handshake failed: no application byte can have arrived.
    HandshakeFailed,
    /// The request's bytes, as decrypted.
    Request(String),
}

/// A TLS server on 127.0.0.1 that accepts one connection, reads one request head and
/// answers it with a JSON 200. Returns its https URL (by name, so the certificate's name
/// matches) and a handle with what it saw.
fn tls_server(cert: &X509, key: &PKey<Private>) -> (String, std::thread::JoinHandle<Seen>) {
    let mut acceptor = SslAcceptor::mozilla_intermediate_v5(SslMethod::tls()).unwrap();
    acceptor.set_private_key(key).unwrap();
    acceptor.set_certificate(cert).unwrap();
    let acceptor = acceptor.build();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("https://localhost:{}", listener.local_addr().unwrap().port());
    let handle = std::thread::spawn(move || {
        let (tcp, _) = listener.accept().unwrap();
        tcp.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        let mut tls = match acceptor.accept(tcp) {
            Ok(s) => s,
            Err(_) => return Seen::HandshakeFailed,
        };
        let mut got = Vec::new();
        let mut buf = [0u8; 4096];
        while !got.windows(4).any(|w| w == b"\r\n\r\n") {
            let n = tls.read(&mut buf).unwrap();
            assert!(n > 0, "the client closed before its request head was complete");
            got.extend_from_slice(&buf[..n]);
        }
        let body = r#"{"id":"pi_tls","object":"payment_intent","amount":500,"currency":"usd","status":"succeeded","metadata":{}}"#;
        let answer = format!("HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}", body.len());
        tls.write_all(answer.as_bytes()).unwrap();
        let _ = tls.shutdown();
        Seen::Request(String::from_utf8_lossy(&got).into_owned())
    });
    (url, handle)
}

#[tokio::test]
async fn a_psp_whose_certificate_is_not_trusted_never_receives_the_request() {
    let (cert, key) = self_signed();
    let (url, server) = tls_server(&cert, &key);
    let transport = Arc::new(HttpTransport::new(&url, "sk_test_tls_secret", Duration::from_secs(5)).unwrap());
    let client = PspClient::new(transport.clone(), Duration::from_secs(10));
    let req = client.create_intent_request_from_form(vec![("amount".into(), "500".into())], "tls-key-1");
    let res = transport.send(req).await;
    // The handshake is part of connecting: the request was never written.
    assert!(matches!(&res, Err(TransportError::ConnectRefused(_))), "{res:?}");
    let seen = tokio::task::spawn_blocking(move || server.join().unwrap()).await.unwrap();
    assert!(matches!(seen, Seen::HandshakeFailed), "an untrusted server got {seen:?}");
    // Never reached the PSP: the same key is retried, nothing may have been charged.
    match classify::<PaymentIntent>(res) {
        AttemptOutcome::Retry { reason: RetryReason::Transport(TransportError::ConnectRefused(_)), .. } => {}
        o => panic!("expected a retry of an attempt that never left, got {o:?}"),
    }
    assert!(AttemptKind::ConnectionRefused.never_sent());
}

#[tokio::test]
async fn a_trusted_certificate_carries_the_request_through_openssl() {
    let (cert, key) = self_signed();
    let (url, server) = tls_server(&cert, &key);
    // The same stack as the transport's (reqwest over the system's OpenSSL), told to trust
    // this certificate as a store would by installing its CA.
    let http = reqwest::Client::builder()
        .add_root_certificate(reqwest::Certificate::from_pem(&cert.to_pem().unwrap()).unwrap())
        .build()
        .unwrap();
    let answer = http.get(format!("{url}/v1/payment_intents/pi_tls")).send().await.unwrap();
    assert_eq!(answer.status(), 200);
    let pi: PaymentIntent = answer.json().await.unwrap();
    assert_eq!(pi.id, "pi_tls");
    let seen = tokio::task::spawn_blocking(move || server.join().unwrap()).await.unwrap();
    match seen {
        Seen::Request(head) => assert!(head.starts_with("GET /v1/payment_intents/pi_tls HTTP/1.1"), "{head}"),
        Seen::HandshakeFailed => panic!("the handshake failed with a trusted certificate"),
    }
}
