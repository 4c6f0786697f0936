//! The heartbeat of a sealed log, version 2: authenticated at the cost of
//! a few hashes a beat instead of a signature each second.
//!
//! When a session first beats it draws a random seed (kept in memory only) and a random session
//! id, and builds a one-way hash chain `v_L = seed`, `v_{j-1} = H(session ‖ v_j)` down to `v_0`
//! (H = SHA-256, `L` = [`CHAIN_LENGTH`]). It signs ONE anchor with the arbiter key: the game's
//! origin, the session id, the boot id and CLOCK_BOOTTIME, the UTC and the game time at that
//! moment, the slot length ([`SLOT_MS`]), `L` and `v_0`. The boot clock after the anchor is cut
//! into slots; a beat in slot `i` writes `i`, its own times and `v_i`. A reopen checks the anchor's
//! signature, that `i` hashes of `v_i` give `v_0`, and that the beat's times lie in slot `i`; it
//! then takes the START of slot `i` as the moment the kit was alive. Whoever holds the folder sees
//! only values already revealed, and going up the chain (a later slot) means inverting SHA-256: a
//! beat cannot be moved later than the kit really ran, nor taken from another session. The kit
//! keeps only every [`SEGMENT`]-th value and the segment in use (flat memory), so a beat costs
//! about two hashes per slot on average. A chain that runs out (the boot clock past slot `L`) is
//! renewed with a new seed and anchor, signed once.
use std::fmt::Write as _;
use std::path::Path;

use chrono::{DateTime, Utc};
use sha2::{Digest, Sha256};

use crate::core::Ms;

/// The first line of the signed anchor text, and the anchor's `v`.
pub const V2: &str = "arbiter-kit heartbeat v2";
/// The length of a slot of the boot clock: a beat proves the kit ran at the start of its slot, so
/// this is added to the uncertainty of a gap measured from a v2 beat.
pub const SLOT_MS: u64 = 200;
/// Slots per anchor (131,072 × 0.2 s ≈ 7 h 17 min: the anchor is signed when the key is at
/// hand, at the open or an act of the arbiter, and renewed at an act past half its chain); a
/// multiple of [`SEGMENT`].
pub const CHAIN_LENGTH: u64 = 1 << 17;
/// Every `SEGMENT`-th chain value is kept; the others are computed a segment at a time.
pub const SEGMENT: u64 = 128;
/// The longest chain a reopen walks (a hostile file cannot make it hash for long).
pub const MAX_CHAIN_LENGTH: u64 = 1 << 20;
/// The beat line's length (padded with spaces), so that a beat overwrites the last in place.
const BEAT_LINE: usize = 255;
/// How far a beat's own game time and UTC may lie from what its anchor gives for its boot time.
pub const TIME_TOLERANCE_MS: i64 = 2_000;

type Value = [u8; 32];

/// One step down the chain: `H(session ‖ v)` (one SHA-256 block).
fn step(session: &[u8; 16], v: &Value) -> Value {
    let mut h = Sha256::new();
    h.update(session);
    h.update(v);
    h.finalize().into()
}

/// `v` hashed `steps` times.
pub fn walk(session: &[u8; 16], v: &Value, steps: u64) -> Value {
    let mut x = *v;
    for _ in 0..steps {
        x = step(session, &x);
    }
    x
}

/// A session's hash chain: every [`SEGMENT`]-th value, and the segment last used.
pub struct Chain {
    session: [u8; 16],
    length: u64,
    /// `v_{k·SEGMENT}` for `k = 0 ..= length / SEGMENT`.
    checkpoints: Vec<Value>,
    /// The checkpoint index above the loaded segment (0: none loaded).
    top: u64,
    /// `v_{top-1}, v_{top-2}, …, v_{top-SEGMENT+1}`.
    segment: Vec<Value>,
}

impl Chain {
    /// The chain of `seed` (its last value) for `session`; `length` is rounded up to a positive
    /// multiple of [`SEGMENT`].
    pub fn new(seed: Value, session: [u8; 16], length: u64) -> Chain {
        let length = length.clamp(SEGMENT, MAX_CHAIN_LENGTH).div_ceil(SEGMENT) * SEGMENT;
        let mut checkpoints = vec![[0u8; 32]; (length / SEGMENT + 1) as usize];
        let mut v = seed;
        let mut j = length;
        loop {
            if j.is_multiple_of(SEGMENT) {
                checkpoints[(j / SEGMENT) as usize] = v;
            }
            if j == 0 {
                break;
            }
            v = step(&session, &v);
            j -= 1;
        }
        Chain {
            session,
            length,
            checkpoints,
            top: 0,
            segment: Vec::with_capacity(SEGMENT as usize),
        }
    }

    /// `v_0`, the value the anchor signs.
    pub fn head(&self) -> Value {
        self.checkpoints[0]
    }

    pub fn length(&self) -> u64 {
        self.length
    }

    pub fn session(&self) -> [u8; 16] {
        self.session
    }

    /// `v_i`, or `None` past the chain's end.
    pub fn value(&mut self, i: u64) -> Option<Value> {
        if i > self.length {
            return None;
        }
        if i.is_multiple_of(SEGMENT) {
            return self.checkpoints.get((i / SEGMENT) as usize).copied();
        }
        let top = (i / SEGMENT + 1) * SEGMENT;
        if self.top != top {
            let mut v = *self.checkpoints.get((top / SEGMENT) as usize)?;
            self.segment.clear();
            for _ in 1..SEGMENT {
                v = step(&self.session, &v);
                self.segment.push(v);
            }
            self.top = top;
        }
        self.segment.get((top - i - 1) as usize).copied()
    }

    /// How many values the chain holds in memory (flat: about `2·sqrt(length)` at most).
    pub fn stored(&self) -> usize {
        self.checkpoints.len() + self.segment.len()
    }
}

/// What the arbiter key signs once per chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Anchor {
    pub origin: String,
    pub session: [u8; 16],
    pub boot_id: String,
    pub boottime_ms: u64,
    /// RFC 3339 with milliseconds and `Z`, as the log writes it.
    pub utc: String,
    pub mono_ms: Ms,
    pub slot_ms: u64,
    pub length: u64,
    pub head: Value,
}

impl Anchor {
    /// The signed bytes: ten lines, each ending in `\n`.
    pub fn text(&self) -> String {
        format!(
            "{V2}\n{}\n{}\n{}\n{}\n{}\n{}\n{}\n{}\n{}\n",
            self.origin,
            hex::encode(self.session),
            self.boot_id,
            self.boottime_ms,
            self.utc,
            self.mono_ms,
            self.slot_ms,
            self.length,
            hex::encode(self.head)
        )
    }

    /// The heartbeat file's first line.
    fn line(&self, sig: &str) -> String {
        serde_json::json!({
            "v": V2,
            "origin": self.origin,
            "session": hex::encode(self.session),
            "boot_id": self.boot_id,
            "boottime_ms": self.boottime_ms,
            "utc": self.utc,
            "mono_ms": self.mono_ms,
            "slot_ms": self.slot_ms,
            "length": self.length,
            "h0": hex::encode(self.head),
            "sig": sig,
        })
        .to_string()
    }
}

/// A session's current chain and its signed anchor line.
struct Current {
    anchor: Anchor,
    chain: Chain,
    line: String,
}

/// Whether anchor `c` serves a beat at `t` of game `origin`, with at least `1/part` of its chain
/// still to run after `t` (`part` 1: any of it).
fn fits(c: &Current, origin: &str, t: BeatTimes<'_>, part: u64) -> bool {
    let len = c.chain.length();
    let limit = if part <= 1 { len } else { len - len / part };
    c.anchor.origin == origin
        && c.anchor.boot_id == t.boot_id
        && t.boottime_ms >= c.anchor.boottime_ms
        && (t.boottime_ms - c.anchor.boottime_ms) / c.anchor.slot_ms <= limit
}

/// Makes a session's v2 beats: anchors (signed once per chain) and the beat lines.
pub struct Beater {
    length: u64,
    current: Option<Current>,
    /// How many anchors this session signed (the first one included).
    pub anchors: u64,
}

impl Default for Beater {
    fn default() -> Self {
        Beater::with_length(CHAIN_LENGTH)
    }
}

/// The boot clock and the times a beat is made at.
#[derive(Debug, Clone, Copy)]
pub struct BeatTimes<'a> {
    pub boot_id: &'a str,
    pub boottime_ms: u64,
    pub mono_ms: Ms,
    pub utc: &'a DateTime<Utc>,
}

impl Beater {
    /// A beater whose chains hold `length` slots (tests use short chains to see a renewal).
    pub fn with_length(length: u64) -> Beater {
        Beater {
            length,
            current: None,
            anchors: 0,
        }
    }

    /// The whole heartbeat file for a beat at `t`: the anchor line, then the beat line padded to
    /// a fixed length. A new anchor is drawn and signed (`sign` over [`Anchor::text`]) at the
    /// first beat, when the chain ran out, or after a restart of the machine. `None` when no
    /// anchor can be made (no randomness, the key cannot sign).
    pub fn record(
        &mut self,
        origin: &str,
        t: BeatTimes<'_>,
        sign: &dyn Fn(&str) -> Option<String>,
    ) -> Option<String> {
        self.ensure_anchor(origin, t, sign, 1);
        self.beat_line(origin, t)
    }

    /// The heartbeat file for a beat at `t` on the anchor in use, when it still fits `t`
    /// (nothing is signed: the key is not at hand); `None` past its chain.
    pub fn record_unsigned(&mut self, origin: &str, t: BeatTimes<'_>) -> Option<String> {
        if !self.current.as_ref().is_some_and(|c| fits(c, origin, t, 1)) {
            self.current = None;
        }
        self.beat_line(origin, t)
    }

    fn beat_line(&mut self, _origin: &str, t: BeatTimes<'_>) -> Option<String> {
        let c = self.current.as_mut()?;
        let i = (t.boottime_ms - c.anchor.boottime_ms) / c.anchor.slot_ms;
        let value = c.chain.value(i)?;
        // The anchor line, then the beat line padded to 255 characters (all ASCII), written
        // straight into one string: the idle board makes this every second.
        let mut out = String::with_capacity(c.line.len() + BEAT_LINE + 2);
        out.push_str(&c.line);
        out.push('\n');
        let start = out.len();
        let mut hex = [0u8; 64];
        let hex = match hex::encode_to_slice(value, &mut hex) {
            Ok(()) => std::str::from_utf8(&hex).unwrap_or_default(),
            Err(_) => "",
        };
        let _ = write!(
            out,
            "{{\"i\":{i},\"boottime_ms\":{},\"mono_ms\":{},\"utc\":\"{}\",\"value\":\"{hex}\"}}",
            t.boottime_ms,
            t.mono_ms,
            crate::log::format_utc(t.utc),
        );
        let pad = BEAT_LINE.saturating_sub(out.len() - start);
        out.extend(std::iter::repeat_n(' ', pad));
        out.push('\n');
        Some(out)
    }

    /// Sign a new anchor at `t` unless the chain in use still has at least half its length to
    /// run after `t` (an act of the arbiter, when the key is at hand: the beats of the hours
    /// after it need none). `false` when no anchor could be made.
    pub fn prepare(
        &mut self,
        origin: &str,
        t: BeatTimes<'_>,
        sign: &dyn Fn(&str) -> Option<String>,
    ) -> bool {
        self.ensure_anchor(origin, t, sign, 2)
    }

    /// The anchor in use fits `t` with at least `1/part` of its chain still to run after it;
    /// else a new one is drawn and signed (`None` from `sign`: the current one is kept if it
    /// still fits at all).
    fn ensure_anchor(
        &mut self,
        origin: &str,
        t: BeatTimes<'_>,
        sign: &dyn Fn(&str) -> Option<String>,
        part: u64,
    ) -> bool {
        if !self
            .current
            .as_ref()
            .is_some_and(|c| fits(c, origin, t, part))
        {
            if !self.current.as_ref().is_some_and(|c| fits(c, origin, t, 1)) {
                self.current = None;
            }
            let mut seed = [0u8; 32];
            let mut session = [0u8; 16];
            {
                use rand_core::RngCore as _;
                if rand_core::OsRng.try_fill_bytes(&mut seed).is_err()
                    || rand_core::OsRng.try_fill_bytes(&mut session).is_err()
                {
                    return self.current.is_some();
                }
            }
            let chain = Chain::new(seed, session, self.length);
            let anchor = Anchor {
                origin: origin.to_owned(),
                session,
                boot_id: t.boot_id.to_owned(),
                boottime_ms: t.boottime_ms,
                utc: crate::log::format_utc(t.utc),
                mono_ms: t.mono_ms,
                slot_ms: SLOT_MS,
                length: chain.length(),
                head: chain.head(),
            };
            let Some(sig) = sign(&anchor.text()) else {
                return self.current.is_some();
            };
            let line = anchor.line(&sig);
            self.current = Some(Current {
                anchor,
                chain,
                line,
            });
            self.anchors += 1;
        }
        true
    }

    /// The chain in use (tests: its memory).
    pub fn chain(&self) -> Option<&Chain> {
        self.current.as_ref().map(|c| &c.chain)
    }
}

/// A beat a reopen can trust: the moment the kit is known to have been alive, and how much
/// later than that it may have written the beat (the slot; 0 for a v1 beat, signed itself).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verified {
    pub mono_ms: Ms,
    pub utc: DateTime<Utc>,
    pub boot_id: String,
    pub boottime_ms: u64,
    pub slack_ms: Ms,
}

/// Whether `bytes` (a heartbeat file) is in the v2 format (its first line names it).
pub fn is_v2(bytes: &[u8]) -> bool {
    let first = bytes.split(|b| *b == b'\n').next().unwrap_or_default();
    serde_json::from_slice::<serde_json::Value>(first)
        .ok()
        .and_then(|v| v.get("v").and_then(|x| x.as_str()).map(|s| s == V2))
        .unwrap_or(false)
}

/// Check a v2 heartbeat file against the arbiter key and the game's origin. The error says, in
/// words for the arbiter, why the beat is not authentic.
pub fn verify(bytes: &[u8], key: &ssh_key::PublicKey, origin: &str) -> Result<Verified, String> {
    let mut lines = bytes.split(|b| *b == b'\n');
    let parse = |l: Option<&[u8]>| -> Option<serde_json::Value> {
        serde_json::from_slice(l?.trim_ascii_end()).ok()
    };
    let (Some(a), Some(b)) = (parse(lines.next()), parse(lines.next())) else {
        return Err("not the kit's v2 format: an anchor line and a beat line".into());
    };
    let s = |v: &serde_json::Value, k: &str| v.get(k).and_then(|x| x.as_str()).map(str::to_owned);
    let u = |v: &serde_json::Value, k: &str| v.get(k).and_then(|x| x.as_u64());
    let hex_n =
        |s: Option<String>, n: usize| s.and_then(|s| hex::decode(s).ok()).filter(|b| b.len() == n);
    let bad = || "not the kit's v2 format: a field is missing or malformed".to_string();
    let session: [u8; 16] = hex_n(s(&a, "session"), 16)
        .and_then(|b| b.try_into().ok())
        .ok_or_else(bad)?;
    let head: Value = hex_n(s(&a, "h0"), 32)
        .and_then(|b| b.try_into().ok())
        .ok_or_else(bad)?;
    let anchor = Anchor {
        origin: s(&a, "origin").ok_or_else(bad)?,
        session,
        boot_id: s(&a, "boot_id").ok_or_else(bad)?,
        boottime_ms: u(&a, "boottime_ms").ok_or_else(bad)?,
        utc: s(&a, "utc").ok_or_else(bad)?,
        mono_ms: u(&a, "mono_ms").ok_or_else(bad)?,
        slot_ms: u(&a, "slot_ms").filter(|&p| p > 0).ok_or_else(bad)?,
        length: u(&a, "length").ok_or_else(bad)?,
        head,
    };
    if s(&a, "v").as_deref() != Some(V2) {
        return Err(bad());
    }
    if anchor.origin != origin {
        return Err(format!(
            "its anchor is for {}, not this game ({origin})",
            anchor.origin
        ));
    }
    if anchor.length > MAX_CHAIN_LENGTH {
        return Err(format!(
            "its chain of {} values is longer than the kit ever makes",
            anchor.length
        ));
    }
    let sig = s(&a, "sig").unwrap_or_default();
    if !crate::record::sign::verify_authorization(key, &anchor.text(), &sig) {
        return Err("its anchor's signature by the arbiter key does not verify".into());
    }
    let anchor_utc = DateTime::parse_from_rfc3339(&anchor.utc)
        .map(|t| t.with_timezone(&Utc))
        .map_err(|_| bad())?;
    let (Some(i), Some(value), Some(boot), Some(mono), Some(utc)) = (
        u(&b, "i"),
        hex_n(s(&b, "value"), 32).and_then(|v| <Value>::try_from(v).ok()),
        u(&b, "boottime_ms"),
        u(&b, "mono_ms"),
        s(&b, "utc").and_then(|t| DateTime::parse_from_rfc3339(&t).ok()),
    ) else {
        return Err(bad());
    };
    if i > anchor.length || walk(&anchor.session, &value, i) != anchor.head {
        return Err(format!(
            "its value does not hash to the signed anchor in {i} steps: a later beat than the kit wrote, or one of another session"
        ));
    }
    let start = i
        .checked_mul(anchor.slot_ms)
        .and_then(|d| anchor.boottime_ms.checked_add(d))
        .ok_or_else(bad)?;
    if boot < start || boot - start >= anchor.slot_ms {
        return Err(format!(
            "its boot time {boot} ms is not in slot {i} of its anchor ({start}…{} ms): its time was edited",
            start.saturating_add(anchor.slot_ms)
        ));
    }
    let since_anchor = i64::try_from(boot - anchor.boottime_ms).map_err(|_| bad())?;
    let mono_expected = i64::try_from(anchor.mono_ms)
        .map_err(|_| bad())?
        .saturating_add(since_anchor);
    let mono_off = i64::try_from(mono).map_err(|_| bad())? - mono_expected;
    let later = |ms: i64| {
        chrono::Duration::try_milliseconds(ms).and_then(|d| anchor_utc.checked_add_signed(d))
    };
    let utc_expected = later(since_anchor).ok_or_else(bad)?;
    let utc_off = (utc.with_timezone(&Utc) - utc_expected).num_milliseconds();
    if mono_off.abs() > TIME_TOLERANCE_MS || utc_off.abs() > TIME_TOLERANCE_MS {
        return Err(format!(
            "its game time or UTC is not what its anchor gives for its boot time (off by {mono_off} ms and {utc_off} ms): its time was edited (or the wall clock was set while the kit ran)"
        ));
    }
    let alive = start - anchor.boottime_ms;
    Ok(Verified {
        mono_ms: anchor.mono_ms.saturating_add(alive),
        utc: i64::try_from(alive).ok().and_then(later).ok_or_else(bad)?,
        boot_id: anchor.boot_id,
        boottime_ms: start,
        slack_ms: anchor.slot_ms,
    })
}

/// Where the beats go: `game-<n>/heartbeat`, opened once and kept open (an open, a
/// write and a close each second cost wakeups). A [`Watch`] on the game folder says when the
/// name `heartbeat` was removed, renamed or made anew; only then does a beat ask the path (one
/// `statx`, never following a link) whether it still names the open file, and write it again if
/// not: a heartbeat removed or replaced while the board runs is noticed at the next beat, and a
/// beat is one `pwrite` otherwise. Without a watch (no inotify), every beat asks the path.
#[derive(Default)]
pub struct BeatFile {
    file: Option<(std::fs::File, (u64, u64))>,
    /// The game folder watched (started with the first open); without it, the path is asked at
    /// every beat.
    watch: Option<Watch>,
    watch_tried: bool,
    /// The last beat could not be written (said once, until a beat is written again).
    failing: bool,
    /// The v2 beats of this session.
    pub beater: Beater,
    /// The game's origin and the beat's path, made at the session's first beat.
    pub names: Option<(String, std::path::PathBuf)>,
}

impl BeatFile {
    /// Write `bytes` at offset 0. Returns what the arbiter should be told: the file was removed
    /// or replaced and written again, or it cannot be written (once, until it can again).
    pub fn write(&mut self, path: &Path, bytes: &[u8]) -> Option<String> {
        use std::os::unix::fs::{FileExt, MetadataExt};
        let mut lost = None;
        if !self.watch_tried {
            self.watch_tried = true;
            self.watch = path.parent().and_then(Watch::start);
        }
        // Nothing but the write while the watch saw nothing happen to the name.
        let ask = self.watch.as_ref().is_none_or(Watch::heartbeat_touched);
        if let Some((f, _)) = &self.file
            && !ask
        {
            if f.write_all_at(bytes, 0).is_ok() {
                return None;
            }
            lost = Some("could not be written".to_string());
            self.file = None;
        }
        if let Some((f, id)) = &self.file {
            match std::fs::symlink_metadata(path) {
                Ok(m) if (m.dev(), m.ino()) == *id => {
                    if f.write_all_at(bytes, 0).is_ok() {
                        return None;
                    }
                    lost = Some("could not be written".to_string());
                }
                Ok(_) => lost = Some("was REPLACED".to_string()),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    lost = Some("was REMOVED".to_string())
                }
                Err(e) => lost = Some(format!("cannot be checked ({e})")),
            }
            self.file = None;
        }
        let opened = open_beat_file(path).and_then(|f| {
            f.write_all_at(bytes, 0)?;
            let m = f.metadata()?;
            Ok((f, (m.dev(), m.ino())))
        });
        match opened {
            Ok(f) => {
                self.file = Some(f);
                let was_failing = std::mem::replace(&mut self.failing, false);
                match lost {
                    Some(l) => Some(format!(
                        "{l} while the board ran: the kit wrote its beat again (a restart measures its gap from it)"
                    )),
                    None if was_failing => Some("is written again".into()),
                    None => None,
                }
            }
            Err(e) => {
                let first = !std::mem::replace(&mut self.failing, true);
                (first || lost.is_some()).then(|| {
                    format!(
                        "{}: {e}; until it is written a restart measures its gap from the last entry (longer than the outage)",
                        lost.unwrap_or_else(|| "cannot be written".into())
                    )
                })
            }
        }
    }

    /// Whether a file is open (tests).
    pub fn is_open(&self) -> bool {
        self.file.is_some()
    }

    /// Whether the game folder is watched (tests: then a beat asks nothing of the path).
    pub fn is_watched(&self) -> bool {
        self.watch.is_some()
    }

    /// Changes the watch saw to the checkpoints folder; `None` when nothing watches it.
    pub fn folder_changes(&self) -> Option<u64> {
        self.watch.as_ref().and_then(Watch::folder_changes)
    }
}

/// `game-<n>/heartbeat` opened for writing, created owner-only if missing, never truncated (a
/// beat overwrites the last one whole at a fixed length). Only a regular file with one name:
/// never through a link planted in the folder (`O_NOFOLLOW`), never a FIFO or device
/// (`O_NONBLOCK` so that a FIFO's open does not wait for a reader; the kind is checked on the
/// open file itself), and never a hard link to another file (the log, a key), which a beat would
/// overwrite.
pub fn open_beat_file(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
    let f = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)?;
    let m = f.metadata()?;
    if !m.file_type().is_file() {
        Err(std::io::Error::other("the heartbeat is not a regular file"))
    } else if m.nlink() != 1 {
        Err(std::io::Error::other(
            "the heartbeat has another name (a hard link): not written",
        ))
    } else {
        Ok(f)
    }
}

/// What a watcher thread saw in the game's folder (inotify, no polling): the heartbeat's name
/// removed, renamed or created anew, and each change to the checkpoints folder (a camp's
/// countersignature). The thread sleeps in a blocking read until the kernel has an event; the
/// kit's own beats (writes to the open file) raise none it listens for.
pub struct Watch {
    inotify: std::sync::Arc<std::os::fd::OwnedFd>,
    game_wd: i32,
    shared: std::sync::Arc<Seen>,
}

#[derive(Default)]
struct Seen {
    /// The name `heartbeat` changed (or the watch failed): check the path at the next beat.
    heartbeat: std::sync::atomic::AtomicBool,
    /// Counts changes to the checkpoints folder (or watch failures).
    folder: std::sync::atomic::AtomicU64,
    /// The watch is being dropped: the thread ends.
    stop: std::sync::atomic::AtomicBool,
    /// The thread ended (the folder's watch gone, a read failed): nothing is seen any more, so
    /// every beat asks the path and the status is asked at every frame.
    dead: std::sync::atomic::AtomicBool,
}

impl Watch {
    /// Watch `game_dir` (and its `checkpoints` folder, now or once it is made). `None` when the
    /// kernel gives no inotify watch (then the caller checks the path at every beat).
    pub fn start(game_dir: &Path) -> Option<Watch> {
        use rustix::fs::inotify::{self, CreateFlags, WatchFlags};
        use std::sync::Arc;
        use std::sync::atomic::Ordering::SeqCst;
        let fd = Arc::new(inotify::init(CreateFlags::CLOEXEC).ok()?);
        let names = WatchFlags::CREATE
            | WatchFlags::DELETE
            | WatchFlags::MOVED_FROM
            | WatchFlags::MOVED_TO
            | WatchFlags::DELETE_SELF
            | WatchFlags::MOVE_SELF
            | WatchFlags::ONLYDIR
            | WatchFlags::DONT_FOLLOW;
        let game_wd = inotify::add_watch(&*fd, game_dir, names).ok()?;
        let checkpoints = game_dir.join("checkpoints");
        // Both watches are in place before `start` returns: no change after it is missed.
        let mut cp_wd = inotify::add_watch(&*fd, &checkpoints, names).ok();
        let shared = Arc::new(Seen::default());
        let (fd2, seen) = (Arc::clone(&fd), Arc::clone(&shared));
        let run = move || {
            let mut buf = [std::mem::MaybeUninit::<u8>::uninit(); 1024];
            let mut events = inotify::Reader::new(std::os::fd::AsFd::as_fd(&*fd2), &mut buf);
            let all_changed = |seen: &Seen| {
                seen.heartbeat.store(true, SeqCst);
                seen.folder.fetch_add(1, SeqCst);
            };
            loop {
                let ev = match events.next() {
                    Ok(ev) => ev,
                    Err(rustix::io::Errno::INTR) => continue,
                    Err(_) => {
                        seen.dead.store(true, SeqCst);
                        all_changed(&seen);
                        return;
                    }
                };
                if seen.stop.load(SeqCst) {
                    return;
                }
                let flags = ev.events();
                if ev.wd() == game_wd && flags.contains(inotify::ReadFlags::IGNORED) {
                    // The game folder's watch is gone (the folder removed or moved).
                    seen.dead.store(true, SeqCst);
                    all_changed(&seen);
                    return;
                }
                if flags.contains(inotify::ReadFlags::QUEUE_OVERFLOW) {
                    all_changed(&seen);
                } else if ev.wd() == game_wd {
                    let name = ev.file_name().map(|n| n.to_bytes());
                    if name == Some(b"heartbeat".as_slice())
                        || flags.intersects(
                            inotify::ReadFlags::DELETE_SELF | inotify::ReadFlags::MOVE_SELF,
                        )
                    {
                        seen.heartbeat.store(true, SeqCst);
                    }
                    if name == Some(b"checkpoints".as_slice()) {
                        seen.folder.fetch_add(1, SeqCst);
                        // The checkpoints folder made (or put back) after the watch began.
                        if flags
                            .intersects(inotify::ReadFlags::CREATE | inotify::ReadFlags::MOVED_TO)
                        {
                            cp_wd = inotify::add_watch(&*fd2, &checkpoints, names).ok();
                            // What was put in it before its watch began is read again now.
                            seen.folder.fetch_add(1, SeqCst);
                        }
                    }
                } else if Some(ev.wd()) == cp_wd {
                    seen.folder.fetch_add(1, SeqCst);
                    if flags.contains(inotify::ReadFlags::IGNORED) {
                        cp_wd = None;
                    }
                }
            }
        };
        // A small stack: the thread holds a 1 KiB buffer and a few values.
        std::thread::Builder::new()
            .name("heartbeat-watch".into())
            .stack_size(64 * 1024)
            .spawn(run)
            .ok()?;
        Some(Watch {
            inotify: fd,
            game_wd,
            shared,
        })
    }

    /// Whether the heartbeat's name changed since the last call (and forget it); always, once
    /// the watch has ended.
    pub fn heartbeat_touched(&self) -> bool {
        use std::sync::atomic::Ordering::SeqCst;
        self.shared.heartbeat.swap(false, SeqCst) || self.shared.dead.load(SeqCst)
    }

    /// Changes seen to the checkpoints folder so far; `None` once the watch has ended.
    pub fn folder_changes(&self) -> Option<u64> {
        use std::sync::atomic::Ordering::SeqCst;
        (!self.shared.dead.load(SeqCst)).then(|| self.shared.folder.load(SeqCst))
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        // Removing the watch wakes the thread (IN_IGNORED), which sees `stop` and ends.
        self.shared
            .stop
            .store(true, std::sync::atomic::Ordering::SeqCst);
        let _ = rustix::fs::inotify::remove_watch(&*self.inotify, self.game_wd);
    }
}
