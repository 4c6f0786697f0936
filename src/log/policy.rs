//! The match policy, version 1 (PURE): what every game of a match is held to, signed by the
//! arbiter's key when the match's first game under it is created (`DIR/policy.txt`, its SSHSIG
//! `DIR/policy.txt.sig`), and named by the SHA-256 of its text in every such game's line 0
//! (`arbiter_key.policy`). `verify` holds each game numbered from `first-game` on to it: no
//! game of another match, no binding but the policy's, no camp the policy names left out, no camp
//! key without its proof of possession, and, where the policy names camps that witness live, no
//! stretch of entries longer than the policy's interval without each such camp's cosignature.

/// First line of a policy's text (never a checkpoint's `arbiter-kit/…` origin, nor an index's).
pub const HEADER: &str = "arbiter-kit match policy v1";

/// A match policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Policy {
    pub match_id: String,
    /// How every game binds its entries (`seal/1`).
    pub binding: String,
    /// The arbiter key's fingerprint (`SHA256:…`).
    pub arbiter: String,
    /// The first game the policy holds (earlier games predate it).
    pub first_game: u32,
    /// 16 random bytes (hex) drawn when the policy is made: two matches never share a policy,
    /// even under the same match id and key.
    pub instance: String,
    /// The camps every game declares: label and key (`<type> <base64>`), each with its proof in
    /// line 0.
    pub camps: Vec<(String, String)>,
    /// A rehearsal's policy (the line `rehearsal`): the match was made with the demo key or with
    /// the passphrase in the environment, which only a rehearsal may give.
    pub rehearsal: bool,
    /// The camps that witness live, each with its interval (`witness <label> every <N>`): every
    /// game's checkpoints that camp cosigned must leave no stretch of more than N entries
    /// uncovered. Empty: no live witness is required (and the lines are absent).
    pub witness: Vec<(String, u64)>,
}

/// A policy text that does not parse: what is wrong, in words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("match policy: {0}")]
pub struct PolicyError(pub String);

fn plain(field: &str, value: &str) -> Result<(), PolicyError> {
    if value.is_empty() || value.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(PolicyError(format!(
            "{field} {value:?} is empty or holds spaces or control characters"
        )));
    }
    Ok(())
}

impl Policy {
    /// The text, each line ending in `\n`:
    /// ```text
    /// arbiter-kit match policy v1
    /// match <match-id>
    /// instance <32 hex digits>
    /// binding <binding>
    /// arbiter <fingerprint>
    /// first-game <n>
    /// rehearsal                        (only in a rehearsal's policy)
    /// camp <label> <type> <base64>     (one line per camp, in declaration order)
    /// witness <label> every <N>         (one line per camp that witnesses live, if any)
    /// ```
    pub fn to_text(&self) -> Result<String, PolicyError> {
        plain("match", &self.match_id)?;
        plain("binding", &self.binding)?;
        plain("arbiter", &self.arbiter)?;
        plain("instance", &self.instance)?;
        let mut t = format!(
            "{HEADER}\nmatch {}\ninstance {}\nbinding {}\narbiter {}\nfirst-game {}\n",
            self.match_id, self.instance, self.binding, self.arbiter, self.first_game
        );
        if self.rehearsal {
            t.push_str("rehearsal\n");
        }
        for (label, key) in &self.camps {
            plain("camp", label)?;
            let parts: Vec<&str> = key.split_whitespace().take(2).collect();
            let [kind, b64] = parts.as_slice() else {
                return Err(PolicyError(format!(
                    "camp {label}: the key is not <type> <base64>"
                )));
            };
            t.push_str(&format!("camp {label} {kind} {b64}\n"));
        }
        for (label, every) in &self.witness {
            plain("witness", label)?;
            if *every == 0 {
                return Err(PolicyError(format!(
                    "witness {label}: the interval must be at least 1 entry"
                )));
            }
            t.push_str(&format!("witness {label} every {every}\n"));
        }
        Ok(t)
    }

    /// Parse a policy's text, exactly as [`Policy::to_text`] writes it.
    pub fn parse(text: &str) -> Result<Policy, PolicyError> {
        if !text.ends_with('\n') {
            return Err(PolicyError("the text does not end in a newline".into()));
        }
        let mut lines = text.split_terminator('\n');
        if lines.next() != Some(HEADER) {
            return Err(PolicyError(format!("the first line is not {HEADER:?}")));
        }
        let mut field = |name: &str| -> Result<String, PolicyError> {
            let line = lines
                .next()
                .ok_or_else(|| PolicyError(format!("no `{name}` line")))?;
            let value = line
                .strip_prefix(name)
                .and_then(|v| v.strip_prefix(' '))
                .ok_or_else(|| PolicyError(format!("expected `{name} …`, found {line:?}")))?;
            plain(name, value)?;
            Ok(value.to_owned())
        };
        let match_id = field("match")?;
        let instance = field("instance")?;
        let binding = field("binding")?;
        let arbiter = field("arbiter")?;
        let first_game = field("first-game")?
            .parse::<u32>()
            .map_err(|_| PolicyError("first-game is not a game number".into()))?;
        let mut camps = Vec::new();
        let mut witness = Vec::new();
        let mut lines = lines.peekable();
        let rehearsal = lines.next_if_eq(&"rehearsal").is_some();
        for line in lines {
            let parts: Vec<&str> = line.split(' ').collect();
            match parts.as_slice() {
                ["camp", label, kind, b64] if witness.is_empty() => {
                    camps.push(((*label).to_owned(), format!("{kind} {b64}")));
                }
                ["witness", label, "every", n] => {
                    let every = n.parse::<u64>().map_err(|_| {
                        PolicyError(format!("witness {label}: {n:?} is not a number of entries"))
                    })?;
                    witness.push(((*label).to_owned(), every));
                }
                _ => {
                    return Err(PolicyError(format!(
                        "expected `camp <label> <type> <base64>` or `witness <label> every <N>`, found {line:?}"
                    )));
                }
            }
        }
        let p = Policy {
            match_id,
            instance,
            binding,
            arbiter,
            first_game,
            camps,
            rehearsal,
            witness,
        };
        if p.to_text()? != text {
            return Err(PolicyError(
                "the text is not in its one written form".into(),
            ));
        }
        Ok(p)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn policy_text_round_trips_and_refuses_any_other_form() {
        let p = Policy {
            match_id: "nyc-2003".into(),
            instance: "00112233445566778899aabbccddeeff".into(),
            binding: "seal/1".into(),
            arbiter: "SHA256:abc".into(),
            first_game: 1,
            camps: vec![("white".into(), "ssh-ed25519 AAAA".into())],
            rehearsal: false,
            witness: Vec::new(),
        };
        let t = p.to_text().unwrap();
        assert_eq!(Policy::parse(&t).unwrap(), p);
        let r = Policy {
            rehearsal: true,
            ..p.clone()
        };
        let rt = r.to_text().unwrap();
        assert!(rt.contains("first-game 1\nrehearsal\ncamp white"), "{rt}");
        assert_eq!(Policy::parse(&rt).unwrap(), r);
        assert!(Policy::parse(&t.replace("binding seal/1", "binding none")).is_ok());
        assert!(Policy::parse(&t.replace("first-game 1", "first-game 01")).is_err());
        assert!(Policy::parse(&t.replace("\n", "\r\n")).is_err());
        assert!(Policy::parse(t.trim_end()).is_err());
    }

    #[test]
    fn policy_witness_lines_round_trip_after_the_camps_and_refuse_a_zero_interval() {
        let p = Policy {
            match_id: "m".into(),
            instance: "00112233445566778899aabbccddeeff".into(),
            binding: "signed-acts/1".into(),
            arbiter: "SHA256:abc".into(),
            first_game: 1,
            camps: vec![
                ("white".into(), "ssh-ed25519 AAAA".into()),
                ("black".into(), "ssh-ed25519 BBBB".into()),
            ],
            rehearsal: false,
            witness: vec![("white".into(), 8), ("black".into(), 8)],
        };
        let t = p.to_text().unwrap();
        assert!(
            t.ends_with(
                "camp black ssh-ed25519 BBBB\nwitness white every 8\nwitness black every 8\n"
            ),
            "{t}"
        );
        assert_eq!(Policy::parse(&t).unwrap(), p);
        // A camp line after a witness line, a zero or padded interval: not its one form.
        let moved = t.replace(
            "camp black ssh-ed25519 BBBB\nwitness white every 8\n",
            "witness white every 8\ncamp black ssh-ed25519 BBBB\n",
        );
        assert!(Policy::parse(&moved).is_err());
        assert!(Policy::parse(&t.replace("white every 8", "white every 0")).is_err());
        assert!(Policy::parse(&t.replace("white every 8", "white every 08")).is_err());
        assert!(Policy::parse(&t.replace("white every 8", "white each 8")).is_err());
    }
}
