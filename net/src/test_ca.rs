//! A throwaway certificate authority for tests of real TLS: a CA made in the test, server
//! certificates it signs, written as PEM files a program under test reads. Nothing here
//! turns verification off; a client trusts the CA through `--ca-cert` like a user would.

use std::path::{Path, PathBuf};

use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair};

/// A CA and the folder its PEM files are written to.
pub struct TestCa {
    issuer: CertifiedIssuer<'static, KeyPair>,
    dir: PathBuf,
    cert: PathBuf,
}

/// A server certificate and key signed by a [`TestCa`], as files.
#[derive(Debug, Clone)]
pub struct ServerFiles {
    /// The certificate (PEM).
    pub cert: PathBuf,
    /// Its private key (PEM, PKCS#8).
    pub key: PathBuf,
}

impl TestCa {
    /// A new CA named `name` whose files go to `dir` (`<name>.pem` is its certificate).
    pub fn new(dir: &Path, name: &str) -> TestCa {
        let mut params = CertificateParams::new(Vec::<String>::new()).expect("CA params");
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.distinguished_name.push(DnType::CommonName, name);
        let key = KeyPair::generate().expect("CA key");
        let issuer = CertifiedIssuer::self_signed(params, key).expect("CA certificate");
        let cert = dir.join(format!("{name}.pem"));
        std::fs::write(&cert, issuer.pem()).expect("write the CA certificate");
        TestCa {
            issuer,
            dir: dir.to_path_buf(),
            cert,
        }
    }

    /// The CA certificate's PEM file (what `--ca-cert` names).
    pub fn cert_file(&self) -> PathBuf {
        self.cert.clone()
    }

    /// A server certificate for `names` (DNS names or IP addresses), written as
    /// `<file>.crt` and `<file>.key`.
    pub fn server(&self, file: &str, names: &[&str]) -> ServerFiles {
        let names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
        let params = CertificateParams::new(names).expect("server params");
        let key = KeyPair::generate().expect("server key");
        let cert = params
            .signed_by(&key, &self.issuer)
            .expect("server certificate");
        let files = ServerFiles {
            cert: self.dir.join(format!("{file}.crt")),
            key: self.dir.join(format!("{file}.key")),
        };
        std::fs::write(&files.cert, cert.pem()).expect("write the certificate");
        std::fs::write(&files.key, key.serialize_pem()).expect("write the key");
        files
    }
}
