//! Countersignatures (witnesses) of checkpoints, version 1 (PURE: names and formats only; the
//! signing and checking are in `crate::record::sign`).
//!
//! As both players sign the scoresheet, each camp countersigns a checkpoint: an armored
//! OpenSSH SSHSIG (what `ssh-keygen -Y sign -n arbiter-kit-countersign@v1` writes) over the
//! exact bytes of `checkpoints/<N>.txt`, made with the SSH key the camp declared before the
//! game. It is stored beside the checkpoint as `checkpoints/<N>.txt.cosig-<camp>`.

/// SSHSIG namespace of countersignatures (distinct from the arbiter's
/// [`checkpoint::NAMESPACE`](super::checkpoint::NAMESPACE), so neither signature can stand in
/// for the other).
pub const NAMESPACE: &str = "arbiter-kit-countersign@v1";
/// Longest camp label.
pub const MAX_CAMP_LEN: usize = 32;
/// What joins a checkpoint file name and the camp label.
const SUFFIX: &str = ".txt.cosig-";

/// Why a camp label or countersignature file name is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CosignNameError {
    #[error(
        "camp label {0:?} is not valid: 1 to 32 characters, lowercase letters, digits, '-' or '_', starting with a letter or digit"
    )]
    Camp(String),
    #[error("{0:?} is not a countersignature file name (<N>.txt.cosig-<camp>)")]
    FileName(String),
}

/// Check a camp label: `[a-z0-9][a-z0-9_-]{0,31}`. It names the camp in file names, in
/// allowed-signers lines (as the principal) and in line 0's declarations.
pub fn check_camp(camp: &str) -> Result<(), CosignNameError> {
    let ok = !camp.is_empty()
        && camp.len() <= MAX_CAMP_LEN
        && camp
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_')
        && camp
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_lowercase() || b.is_ascii_digit());
    if ok {
        Ok(())
    } else {
        Err(CosignNameError::Camp(camp.to_owned()))
    }
}

/// File name of camp `camp`'s countersignature of the checkpoint over `size` entries:
/// `<size>.txt.cosig-<camp>`, in the game's `checkpoints/` folder.
pub fn file_name(size: u64, camp: &str) -> Result<String, CosignNameError> {
    check_camp(camp)?;
    Ok(format!("{size}{SUFFIX}{camp}"))
}

/// The checkpoint size and camp of a countersignature file name.
pub fn parse_file_name(name: &str) -> Result<(u64, String), CosignNameError> {
    let bad = || CosignNameError::FileName(name.to_owned());
    let (size, camp) = name.split_once(SUFFIX).ok_or_else(bad)?;
    let n: u64 = size.parse().map_err(|_| bad())?;
    if n.to_string() != size {
        return Err(bad());
    }
    check_camp(camp)?;
    Ok((n, camp.to_owned()))
}

/// The allowed-signers line that lets `ssh-keygen -Y verify -I <camp> -n
/// arbiter-kit-countersign@v1` check a camp's countersignature; `public_key` is the OpenSSH
/// text `<type> <base64>` of the declared key.
pub fn allowed_signers_line(camp: &str, public_key: &str) -> Result<String, CosignNameError> {
    check_camp(camp)?;
    Ok(format!("{camp} namespaces=\"{NAMESPACE}\" {public_key}"))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        assert_eq!(file_name(57, "white").unwrap(), "57.txt.cosig-white");
        assert_eq!(
            parse_file_name("57.txt.cosig-white").unwrap(),
            (57, "white".to_owned())
        );
        for bad in ["", "White", "-x", "a b", "a/b", &"x".repeat(33)] {
            assert!(check_camp(bad).is_err(), "{bad:?}");
        }
        for bad in [
            "057.txt.cosig-white",
            "57.txt.sig",
            "57.txt.cosig-",
            "x.txt.cosig-white",
            "57.txt.cosig-../x",
        ] {
            assert!(parse_file_name(bad).is_err(), "{bad:?}");
        }
    }
}
