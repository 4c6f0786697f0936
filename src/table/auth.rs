//! The seats' token check (SHELL, no clock of its own: the time is handed in): a JSON Web Token
//! signed with HMAC (HS256, HS384 or HS512) under the key the profile's `[auth]` names, with the
//! claims `team` (it must equal the team of the seat's NAME answer) and `role: PLAYER`, as the
//! contest's game server checks it. `exp` and `nbf` are honoured when present.
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};

/// Why a token is refused; the text is what the log and the arbiter read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TokenError {
    #[error("no token: the table requires one (`?token=` in the URL or `Authorization: Bearer`)")]
    Missing,
    #[error("the token is not a JSON Web Token (three base64url parts): {0}")]
    Malformed(&'static str),
    #[error("the token's algorithm {0:?} is not one of HS256, HS384, HS512")]
    Algorithm(String),
    #[error("the token's signature does not hold under the table's key")]
    Signature,
    #[error("the token is for team {token:?}, but the seat answered NAME as team {seat:?}")]
    WrongTeam { token: String, seat: String },
    #[error("the token's role is {0:?}, not \"PLAYER\"")]
    WrongRole(String),
    #[error("the token expired (exp {exp}, now {now})")]
    Expired { exp: i64, now: i64 },
    #[error("the token is not valid yet (nbf {nbf}, now {now})")]
    NotYet { nbf: i64, now: i64 },
}

/// Check `token` for a seat of team `team` under `secret` at Unix time `now`.
pub fn check_player_token(
    secret: &[u8],
    token: Option<&str>,
    team: &str,
    now: i64,
) -> Result<(), TokenError> {
    let token = token.map(str::trim).filter(|t| !t.is_empty());
    let token = token.ok_or(TokenError::Missing)?;
    let mut parts = token.split('.');
    let (Some(h), Some(c), Some(s), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(TokenError::Malformed("it must have exactly three parts"));
    };
    let decode = |p: &str, what: &'static str| {
        URL_SAFE_NO_PAD
            .decode(p.trim_end_matches('='))
            .map_err(|_| TokenError::Malformed(what))
    };
    let header: serde_json::Value = serde_json::from_slice(&decode(h, "bad base64 header")?)
        .map_err(|_| TokenError::Malformed("the header is not JSON"))?;
    let claims: serde_json::Value = serde_json::from_slice(&decode(c, "bad base64 claims")?)
        .map_err(|_| TokenError::Malformed("the claims are not JSON"))?;
    let signature = decode(s, "bad base64 signature")?;
    let alg = header.get("alg").and_then(|a| a.as_str()).unwrap_or("");
    let signed = &token.as_bytes()[..h.len() + 1 + c.len()];
    let holds = match alg {
        "HS256" => verify::<Hmac<sha2::Sha256>>(secret, signed, &signature),
        "HS384" => verify::<Hmac<sha2::Sha384>>(secret, signed, &signature),
        "HS512" => verify::<Hmac<sha2::Sha512>>(secret, signed, &signature),
        other => return Err(TokenError::Algorithm(other.to_string())),
    };
    if !holds {
        return Err(TokenError::Signature);
    }
    if let Some(exp) = claims.get("exp").and_then(serde_json::Value::as_i64)
        && now >= exp
    {
        return Err(TokenError::Expired { exp, now });
    }
    if let Some(nbf) = claims.get("nbf").and_then(serde_json::Value::as_i64)
        && now < nbf
    {
        return Err(TokenError::NotYet { nbf, now });
    }
    let claim = |k: &str| claims.get(k).and_then(|v| v.as_str()).unwrap_or("");
    if claim("team") != team {
        return Err(TokenError::WrongTeam {
            token: claim("team").to_string(),
            seat: team.to_string(),
        });
    }
    if claim("role") != "PLAYER" {
        return Err(TokenError::WrongRole(claim("role").to_string()));
    }
    Ok(())
}

/// The MAC of `signed` under `secret` equals `signature` (compared in constant time).
fn verify<M: Mac + hmac::digest::KeyInit>(secret: &[u8], signed: &[u8], signature: &[u8]) -> bool {
    match <M as hmac::digest::KeyInit>::new_from_slice(secret) {
        Ok(mut m) => {
            m.update(signed);
            m.verify_slice(signature).is_ok()
        }
        Err(_) => false,
    }
}

/// A token for `team` (HS256), as the organisers hand one to each team: for tests and tools.
pub fn player_token(secret: &[u8], team: &str) -> String {
    let header = URL_SAFE_NO_PAD.encode(br#"{"alg":"HS256","typ":"JWT"}"#);
    let claims = URL_SAFE_NO_PAD.encode(
        serde_json::json!({"team": team, "role": "PLAYER"})
            .to_string()
            .as_bytes(),
    );
    let signed = format!("{header}.{claims}");
    let sig = match <Hmac<sha2::Sha256> as hmac::digest::KeyInit>::new_from_slice(secret) {
        Ok(mut m) => {
            m.update(signed.as_bytes());
            URL_SAFE_NO_PAD.encode(m.finalize().into_bytes())
        }
        Err(_) => String::new(),
    };
    format!("{signed}.{sig}")
}

/// The team of a NAME answer: the name without its trailing digits (`kanolab3` → `kanolab`).
pub fn team_of(name: &str) -> &str {
    name.trim_end_matches(|c: char| c.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// A token made outside the kit (Python's hmac + hashlib, as jwt.io shows it) for
    /// {"team":"kanolab","role":"PLAYER"} under the key "secret".
    const KNOWN: &str = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ0ZWFtIjoia2Fub2xhYiIsInJvbGUiOiJQTEFZRVIifQ.9MFwzqwzbcb1_VRBi4bH-WwwU_tfxWfBbwawNAOGlds";

    #[test]
    fn auth_a_token_made_here_holds_for_its_team_only() {
        let t = player_token(b"k", "kanolab");
        assert_eq!(check_player_token(b"k", Some(&t), "kanolab", 0), Ok(()));
        assert!(matches!(
            check_player_token(b"k", Some(&t), "other", 0),
            Err(TokenError::WrongTeam { .. })
        ));
        assert_eq!(
            check_player_token(b"x", Some(&t), "kanolab", 0),
            Err(TokenError::Signature)
        );
        assert_eq!(
            check_player_token(b"k", None, "kanolab", 0),
            Err(TokenError::Missing)
        );
        assert_eq!(
            check_player_token(b"secret", Some(KNOWN), "kanolab", 0),
            Ok(())
        );
        assert_eq!(
            check_player_token(b"secret", Some("a.b"), "kanolab", 0),
            Err(TokenError::Malformed("it must have exactly three parts"))
        );
    }

    #[test]
    fn auth_alg_none_is_refused() {
        let h = URL_SAFE_NO_PAD.encode(br#"{"alg":"none"}"#);
        let c = URL_SAFE_NO_PAD.encode(br#"{"team":"a","role":"PLAYER"}"#);
        let t = format!("{h}.{c}.");
        assert_eq!(
            check_player_token(b"k", Some(&t), "a", 0),
            Err(TokenError::Algorithm("none".into()))
        );
    }

    #[test]
    fn auth_team_is_the_name_without_trailing_digits() {
        assert_eq!(team_of("kanolab3"), "kanolab");
        assert_eq!(team_of("a1b22"), "a1b");
        assert_eq!(team_of("42"), "");
    }
}
