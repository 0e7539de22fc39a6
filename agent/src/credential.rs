//! The node credential file of `serve --credential-file`: one line, `rln_` and 40
//! alphanumerics, made by `runlens node-credential create NODE`. It is a secret, so the file
//! must be readable by its owner alone (mode 0600): the agent refuses one that others can
//! read, with the command that fixes it.

use std::path::{Path, PathBuf};

use api_types::nodes::looks_like_node_credential;

/// Why the credential file is unusable.
#[derive(Debug, thiserror::Error)]
pub enum CredentialError {
    /// It cannot be read.
    #[error("cannot read the node credential file {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Group or others may read it.
    #[error(
        "the node credential file {path} is readable by others (mode {mode:o}); run `chmod 600 \
         {path}`"
    )]
    Exposed {
        /// The file.
        path: PathBuf,
        /// Its permission bits.
        mode: u32,
    },
    /// It does not hold a node credential.
    #[error(
        "{path} does not hold a node credential (rln_ and 40 letters or digits): make one with \
         `runlens node-credential create NODE-NAME` on the server"
    )]
    Malformed {
        /// The file.
        path: PathBuf,
    },
}

/// The credential in `path`, checked: readable by its owner alone, and of a credential's
/// shape.
pub fn read(path: &Path) -> Result<String, CredentialError> {
    let read_error = |source| CredentialError::Read {
        path: path.to_path_buf(),
        source,
    };
    let meta = std::fs::metadata(path).map_err(read_error)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = meta.permissions().mode() & 0o777;
        if mode & 0o077 != 0 {
            return Err(CredentialError::Exposed {
                path: path.to_path_buf(),
                mode,
            });
        }
    }
    #[cfg(not(unix))]
    let _ = meta;
    let text = std::fs::read_to_string(path).map_err(read_error)?;
    let credential = text.trim();
    if !looks_like_node_credential(credential) {
        return Err(CredentialError::Malformed {
            path: path.to_path_buf(),
        });
    }
    Ok(credential.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_private_file_with_a_credential_is_read() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("credential");
        let secret = format!("rln_{}", "a1".repeat(20));
        std::fs::write(&path, format!("{secret}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        let err = read(&path).unwrap_err().to_string();
        assert!(err.contains("chmod 600"), "{err}");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        assert_eq!(read(&path).unwrap(), secret);
        std::fs::write(&path, "rl_an-api-token").unwrap();
        assert!(matches!(
            read(&path),
            Err(CredentialError::Malformed { .. })
        ));
        assert!(matches!(
            read(&dir.path().join("missing")),
            Err(CredentialError::Read { .. })
        ));
    }
}
