//! Streamable HTTP over real TLS: a local HTTPS server (a TLS front for the fixture server)
//! with a certificate from a test CA. mcp-pin verifies it against the system's roots, so it is
//! refused until the test CA is among them (`SSL_CERT_FILE`, as a runner's own CA bundle would
//! be), and then pins the server like any other.

use crate::common;

use std::sync::Arc;

use common::*;
use serde_json::json;

struct TlsFront {
    url: String,
    ca_pem: String,
    _runtime: tokio::runtime::Runtime,
}

/// A TLS terminator on 127.0.0.1 in front of `backend` (`host:port`), with a fresh CA.
fn tls_front(backend: String) -> TlsFront {
    use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair, KeyUsagePurpose};
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca_params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::DigitalSignature];
    ca_params.distinguished_name.push(rcgen::DnType::CommonName, "mcp-pin test CA");
    let ca_key = KeyPair::generate().unwrap();
    let ca_cert = ca_params.self_signed(&ca_key).unwrap();
    let issuer = Issuer::new(ca_params, ca_key);
    let mut leaf = CertificateParams::new(vec!["localhost".to_string(), "127.0.0.1".to_string()]).unwrap();
    leaf.use_authority_key_identifier_extension = true;
    let leaf_key = KeyPair::generate().unwrap();
    let leaf_cert = leaf.signed_by(&leaf_key, &issuer).unwrap();

    let config = tokio_rustls::rustls::ServerConfig::builder_with_provider(Arc::new(
        tokio_rustls::rustls::crypto::aws_lc_rs::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_no_client_auth()
    .with_single_cert(
        vec![leaf_cert.der().clone()],
        tokio_rustls::rustls::pki_types::PrivateKeyDer::Pkcs8(leaf_key.serialize_der().into()),
    )
    .unwrap();
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    // `localhost` may resolve to ::1 first: the front listens on the same port there too, so a
    // server of another test bound to [::1] on that port number is never reached instead (seen
    // under a loaded full run: a 401 from an OAuth fixture). Without IPv6, on 127.0.0.1 alone.
    let (listeners, port) = runtime.block_on(async {
        for _ in 0..50 {
            let v4 = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let port = v4.local_addr().unwrap().port();
            match tokio::net::TcpListener::bind(("::1", port)).await {
                Ok(v6) => return (vec![v4, v6], port),
                Err(e) if e.kind() == std::io::ErrorKind::AddrNotAvailable => return (vec![v4], port),
                Err(_) => continue,
            }
        }
        panic!("no port free on both 127.0.0.1 and ::1");
    });
    for listener in listeners {
        let (acceptor, backend) = (acceptor.clone(), backend.clone());
        runtime.spawn(async move {
            while let Ok((tcp, _)) = listener.accept().await {
                let (acceptor, backend) = (acceptor.clone(), backend.clone());
                tokio::spawn(async move {
                    let Ok(mut tls) = acceptor.accept(tcp).await else { return };
                    let Ok(mut plain) = tokio::net::TcpStream::connect(backend).await else { return };
                    let _ = tokio::io::copy_bidirectional(&mut tls, &mut plain).await;
                });
            }
        });
    }
    TlsFront { url: format!("https://localhost:{port}/mcp"), ca_pem: ca_cert.pem(), _runtime: runtime }
}

#[test]
fn an_https_server_is_verified_against_the_system_roots() {
    let p = Project::new();
    p.write_json("s.json", &json!({"tools": [{"name": "t", "description": "T.", "inputSchema": {"type": "object"}}]}));
    let fx = HttpFixture::start(&p.path("s.json"), &["--stateless"]);
    let backend = fx.url.trim_start_matches("http://").trim_end_matches("/mcp").to_string();
    let front = tls_front(backend);
    p.write("ca.pem", &front.ca_pem);
    p.write("mcp-pin.toml", &format!("[servers.tls]\nurl = {:?}\ntimeout = \"10s\"\nprobe = \"none\"\n", front.url));
    // Not among the roots: refused, and the error says it is the certificate.
    let out = p.run_env(&["lock"], &[("SSL_CERT_FILE", "/nonexistent/none.pem")]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).to_lowercase().contains("certificate"), "{}", text(&out));
    assert!(!p.path("mcp.lock").exists());
    // The test CA among the roots: pinned, then checked clean.
    let ca = p.path("ca.pem").display().to_string();
    let out = p.run_env(&["lock"], &[("SSL_CERT_FILE", &ca)]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let lock = p.read("mcp.lock");
    assert!(lock.contains("https://localhost:") && lock.contains("\"t\""), "{lock}");
    assert_eq!(p.run_env(&["check"], &[("SSL_CERT_FILE", &ca)]).status.code(), Some(0));
}
