//! Following a match folder read-only while a board appends to it: each game's log is read from
//! where the last read stopped (complete lines only, each checked against the previous line's
//! hash), decoded and folded into the game with the core's own `evolve`. Nothing is opened for
//! writing, nothing is locked, nothing is created in the folder.
//!
//! [`Watch`] wakes the follower when the folder changes (inotify through the `notify` crate) and
//! falls back to polling when change notification is not available. [`MatchTail::connect`]
//! follows the live record over its socket instead (`display --connect`, `relay --connect`).
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};

use crate::core::Ms;
use crate::core::event::{Event, EventKind};
use crate::core::game::Game;
use crate::log::{ZERO_HASH, codec::event_of, hex32, parse_line};
use crate::record::layout;

/// How much of a log is read at once.
const READ_BLOCK: u64 = 1 << 20;

/// When one entry was written: its wall time (UTC) and its game time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    pub utc: DateTime<Utc>,
    pub mono: Ms,
}

/// One game's log as read so far.
#[derive(Debug, Clone)]
pub struct GameTail {
    pub number: u32,
    path: PathBuf,
    /// The log, kept open with its device and inode: a look that finds nothing new is one stat
    /// of the path (opening it again would wake every change watcher, this follower's own).
    file: Option<(std::sync::Arc<std::fs::File>, (u64, u64))>,
    /// Bytes of the log read and taken in (complete lines only).
    offset: u64,
    prev: [u8; 32],
    /// A block size that holds the longest line met so far.
    longest_line: u64,
    /// How much is read at once (a long log is never held whole).
    pub read_block: u64,
    /// The entries' times and events, in order.
    pub stamps: Vec<Stamp>,
    pub events: Vec<Event>,
    /// The fold of every event read (`None` before line 0, or when it could not be rebuilt).
    pub game: Option<Game>,
    /// Why the log could not be followed further (a bad line, a broken chain, an unknown entry).
    pub problem: Option<String>,
}

impl GameTail {
    pub fn new(match_dir: &Path, number: u32) -> GameTail {
        GameTail {
            number,
            path: layout::log_path(match_dir, number),
            file: None,
            offset: 0,
            prev: ZERO_HASH,
            longest_line: 0,
            read_block: READ_BLOCK,
            stamps: Vec::new(),
            events: Vec::new(),
            game: None,
            problem: None,
        }
    }

    fn reset(&mut self) {
        let (n, path) = (self.number, std::mem::take(&mut self.path));
        *self = GameTail {
            number: n,
            path,
            ..GameTail::new(Path::new(""), n)
        };
    }

    /// Whether the game has a result.
    pub fn ended(&self) -> bool {
        self.events
            .iter()
            .any(|e| matches!(e.kind, EventKind::GameEnded { .. }))
    }

    /// The log open, and its length now: the kept file while the path still names it, else the
    /// path opened again (`None`: not there yet, the board is creating the game, or unreadable).
    /// Whether it is another file than the one read so far goes with it.
    fn open(&mut self) -> Option<(std::sync::Arc<std::fs::File>, u64, bool)> {
        use std::os::unix::fs::MetadataExt;
        let now = std::fs::symlink_metadata(&self.path).ok()?;
        if let Some((f, id)) = &self.file
            && *id == (now.dev(), now.ino())
        {
            return Some((f.clone(), now.len(), false));
        }
        let f = crate::record::fsio::open_match_file(&self.path).ok()?;
        let meta = f.metadata().ok()?;
        let other = self.file.is_some();
        let f = std::sync::Arc::new(f);
        self.file = Some((f.clone(), (meta.dev(), meta.ino())));
        Some((f, meta.len(), other))
    }

    /// Read what was appended since the last call. Returns whether entries were taken in (or the
    /// log was read again from the start because it was replaced).
    pub fn poll(&mut self) -> bool {
        let Some((f, len, other)) = self.open() else {
            // Not there yet (the board is creating the game), or unreadable: nothing new.
            return false;
        };
        let mut f: &std::fs::File = &f;
        let mut changed = false;
        if other || len < self.offset {
            // The file was replaced or cut back: read it again from the start.
            let kept = self.file.take();
            self.reset();
            self.file = kept;
            changed = true;
        }
        if len == self.offset || self.problem.is_some() {
            return changed;
        }
        // Read in blocks up to the length seen (a long log is not held whole); a line cut by a
        // block's end is read again with the next block.
        while self.offset < len && self.problem.is_none() {
            let mut buf = Vec::new();
            let want = (len - self.offset).min(self.read_block.max(self.longest_line));
            let read = f
                .seek(SeekFrom::Start(self.offset))
                .and_then(|_| (&mut f).take(want).read_to_end(&mut buf));
            if read.is_err() || buf.is_empty() {
                break;
            }
            let mut start = 0usize;
            while let Some(nl) = buf[start..].iter().position(|b| *b == b'\n') {
                let at = self.offset + start as u64;
                if let Err(p) = self.take_line(&buf[start..start + nl], at) {
                    self.problem = Some(format!("{}: {p}", self.path.display()));
                    break;
                }
                start += nl + 1;
                changed = true;
            }
            self.offset += start as u64;
            if start == 0 {
                // No whole line in the block: a line longer than the block (read again with a
                // block twice as big), or the tail still being written (wait for its newline).
                if want < len - self.offset {
                    self.longest_line = want.saturating_mul(2);
                    continue;
                }
                break;
            }
        }
        changed
    }

    fn take_line(&mut self, line: &[u8], at: u64) -> Result<(), String> {
        let e = parse_line(line, at).map_err(|e| format!("line at byte {at}: {e}"))?;
        let seq = self.events.len() as u64;
        if e.seq != seq || e.prev != hex32(&self.prev) {
            return Err(format!(
                "entry {seq} does not follow the previous one (seq or prev hash)"
            ));
        }
        let ev = event_of(&e).map_err(|d| d.to_string())?;
        let utc = DateTime::parse_from_rfc3339(&e.utc)
            .map_err(|_| format!("entry {seq}: bad utc '{}'", e.utc))?
            .with_timezone(&Utc);
        match (&mut self.game, &ev.kind) {
            (Some(g), _) => g.evolve(&ev).map_err(|m| format!("entry {seq}: {}", m.0))?,
            (None, EventKind::GameOpened(o)) => {
                let mut g = Game::from_opening(o).map_err(|e| e.to_string())?;
                g.evolve(&ev).map_err(|m| format!("entry {seq}: {}", m.0))?;
                self.game = Some(g);
            }
            (None, _) => return Err("the first entry is not game_opened".into()),
        }
        self.prev = e.hash;
        self.stamps.push(Stamp {
            utc,
            mono: e.mono_ms,
        });
        self.events.push(ev);
        Ok(())
    }

    /// Game time at wall time `utc`: the latest entry's game time plus the wall time since it was
    /// written (what the board's clock reads now), never before the latest entry.
    pub fn game_time_at(&self, utc: DateTime<Utc>) -> Option<Ms> {
        let last = self.stamps.last()?;
        let since = (utc - last.utc).num_milliseconds().max(0) as Ms;
        Some(last.mono.saturating_add(since))
    }

    /// How many entries were written at or before wall time `cutoff` (the entries an audience
    /// delayed to `cutoff` may see; entries are in time order).
    pub fn entries_until(&self, cutoff: DateTime<Utc>) -> usize {
        self.stamps.partition_point(|s| s.utc <= cutoff)
    }
}

/// What the live record's connection hands a follower.
#[derive(Debug)]
pub enum Live {
    /// Connected (again): the record is sent from entry 0 of every game.
    Connected,
    Entry {
        game: u32,
        line: String,
    },
    /// The connection ended, and why (it is tried again every second).
    Lost(String),
}

/// How long a follower of the live record waits before connecting again.
const RECONNECT_AFTER: Duration = Duration::from_secs(1);

/// Every game of a match folder (or one of them) as read so far.
#[derive(Debug)]
pub struct MatchTail {
    pub dir: PathBuf,
    only: Option<u32>,
    pub games: Vec<GameTail>,
    /// Following the live record (`--connect URL`) instead of the folder: what its connection
    /// hands over, and how the connection stands.
    live: Option<Receiver<Live>>,
    pub live_problem: Option<String>,
    /// The live record answered (its entries follow).
    pub live_connected: bool,
    /// Until when to look often: a game folder just appeared, or entries just came (a new
    /// folder's first writes can land before its change notification is in place).
    brisk_until: Option<Instant>,
    /// The match folder's modification time and link count at its last listing: it is listed
    /// again only when they changed (a game folder added moves both), or while they are recent.
    listed: Option<(std::time::SystemTime, u64)>,
}

impl MatchTail {
    /// Follow the games of `dir` (all of them, new ones as they appear), or game `only` (the
    /// others are still read, for the match score).
    pub fn new(dir: &Path, only: Option<u32>) -> MatchTail {
        MatchTail {
            dir: dir.to_owned(),
            only,
            games: Vec::new(),
            live: None,
            live_problem: None,
            live_connected: false,
            brisk_until: None,
            listed: None,
        }
    }

    /// Follow the live record at `url` (`ws://HOST:PORT/live`) read-only instead of a folder:
    /// its connection runs on a thread of its own (connecting again every second when lost),
    /// and each frame sends [`Wake::Folder`] on `wake`. Nothing is written anywhere.
    pub fn connect<K: Send + 'static>(
        url: &str,
        only: Option<u32>,
        wake: Sender<Wake<K>>,
    ) -> MatchTail {
        let (tx, rx) = std::sync::mpsc::channel::<Live>();
        let url = url.to_owned();
        std::thread::spawn(move || {
            loop {
                let mut each = |f: crate::record::live::ToWitness| {
                    let item = match f {
                        crate::record::live::ToWitness::Hello { .. } => Live::Connected,
                        crate::record::live::ToWitness::Entry { game, line, .. } => {
                            Live::Entry { game, line }
                        }
                        _ => return true,
                    };
                    tx.send(item).is_ok() && wake.send(Wake::Folder).is_ok()
                };
                let why = match crate::record::live::witness::follow(&url, &mut each) {
                    Ok(()) => return,
                    Err(e) => e.to_string(),
                };
                if tx.send(Live::Lost(why)).is_err() || wake.send(Wake::Folder).is_err() {
                    return;
                }
                std::thread::sleep(RECONNECT_AFTER);
            }
        });
        MatchTail {
            live: Some(rx),
            ..MatchTail::new(Path::new(""), only)
        }
    }

    /// Whether this follows the live record rather than a folder.
    pub fn is_live(&self) -> bool {
        self.live.is_some()
    }

    /// Take in what the live record's connection handed over.
    fn poll_live(&mut self) -> bool {
        let Some(rx) = &self.live else {
            return false;
        };
        let mut changed = false;
        while let Ok(item) = rx.try_recv() {
            changed = true;
            match item {
                Live::Connected => {
                    // Sent again from entry 0 of every game.
                    self.games.clear();
                    self.live_problem = None;
                    self.live_connected = true;
                }
                Live::Lost(why) => {
                    self.live_connected = false;
                    self.live_problem = Some(format!("the live record: {why}; connecting again"));
                }
                Live::Entry { game, line } => {
                    let g = match self.games.iter().position(|g| g.number == game) {
                        Some(i) => &mut self.games[i],
                        None => {
                            self.games.push(GameTail::new(Path::new(""), game));
                            self.games.sort_by_key(|g| g.number);
                            let Some(i) = self.games.iter().position(|g| g.number == game) else {
                                continue;
                            };
                            &mut self.games[i]
                        }
                    };
                    if g.problem.is_none()
                        && let Err(p) = g.take_line(line.as_bytes(), 0)
                    {
                        g.problem = Some(format!("game {game} (live record): {p}"));
                    }
                }
            }
        }
        changed
    }

    /// The longest wait before looking at the folder again: [`FALLBACK_POLL`] for a second after
    /// a change, else what `watch` allows.
    pub fn poll_every(&self, watch: &Watch) -> Duration {
        match self.brisk_until {
            Some(t) if Instant::now() < t => FALLBACK_POLL,
            _ => watch.poll_every(),
        }
    }

    /// Take in what was appended, and any new game. Returns whether anything changed.
    pub fn poll(&mut self) -> bool {
        if self.live.is_some() {
            return self.poll_live();
        }
        let mut changed = false;
        for n in self.list() {
            if self.games.iter().any(|g| g.number == n) {
                continue;
            }
            self.games.push(GameTail::new(&self.dir, n));
            self.games.sort_by_key(|g| g.number);
            changed = true;
        }
        for g in &mut self.games {
            changed |= g.poll();
        }
        if changed {
            self.brisk_until = Some(Instant::now() + BRISK);
        }
        changed
    }

    /// The match folder's games, when it may have changed since the last listing (a stat
    /// otherwise: listing it opens it, which would wake every change watcher, this one's own).
    fn list(&mut self) -> Vec<u32> {
        use std::os::unix::fs::MetadataExt;
        let seen = std::fs::metadata(&self.dir)
            .ok()
            .and_then(|m| Some((m.modified().ok()?, m.nlink())));
        // A change within the file system's time granularity of the last listing leaves the
        // time as it was: a time this recent is listed again until it is older.
        let recent =
            seen.is_none_or(|(t, _)| t.elapsed().map_or(true, |age| age < Duration::from_secs(2)));
        if seen.is_some() && seen == self.listed && !recent {
            return Vec::new();
        }
        self.listed = seen;
        layout::games(&self.dir)
    }

    /// The games followed: game `only`, or all of them (the match score counts them all).
    pub fn followed(&self) -> impl Iterator<Item = &GameTail> {
        self.games
            .iter()
            .filter(|g| self.only.is_none_or(|o| o == g.number))
    }

    /// The game on screen: the latest followed game that has entries.
    pub fn current(&self) -> Option<&GameTail> {
        self.followed().filter(|g| !g.events.is_empty()).last()
    }

    /// Match score over the games read so far: (name, points) per player, in order of appearance
    /// (as `matchdir::match_score` counts it from the files).
    pub fn score(&self) -> Vec<(String, f64)> {
        let mut table: Vec<(String, f64)> = Vec::new();
        for g in self.games.iter().filter_map(|t| t.game.as_ref()) {
            let Some(points) = g.points() else { continue };
            for side in crate::core::Side::BOTH {
                let name = g
                    .player(side)
                    .map_or_else(|| side.to_string(), |p| p.name.clone());
                match table.iter_mut().find(|(n, _)| *n == name) {
                    Some(row) => row.1 += points[side.index()],
                    None => table.push((name, points[side.index()])),
                }
            }
        }
        table
    }
}

/// What wakes a follower.
#[derive(Debug)]
pub enum Wake<K> {
    /// The match folder changed (or the fallback poll is due).
    Folder,
    /// Something from the terminal (a key, a resize).
    Input(K),
    /// The terminal's input ended or failed.
    InputGone(String),
}

/// How the follower learns of appends.
pub enum Watch {
    /// Change notification (inotify on Linux), kept alive while this value lives.
    Notify(Notifier),
    /// No notification available: the folder is polled every [`FALLBACK_POLL`].
    Poll(String),
    /// The live record is followed (`--connect`): its connection wakes the follower.
    Live,
}

/// What is watched: the match folder (a new game folder), and each game's log alone (the
/// heartbeat beside it, written every second, wakes nobody), or the game's folder until its log
/// is there ([`Watch::follow`]).
pub struct Notifier {
    watcher: notify::RecommendedWatcher,
    logs: Vec<u32>,
    folders: Vec<u32>,
}

/// Polling period when change notification is not available: appends show within it.
pub const FALLBACK_POLL: Duration = Duration::from_millis(100);

/// How long the follower looks every [`FALLBACK_POLL`] after a change.
pub const BRISK: Duration = Duration::from_secs(1);

/// With change notification, a safety poll this often (a folder on a file system that does not
/// notify, a missed event).
pub const SAFETY_POLL: Duration = Duration::from_secs(2);

impl Watch {
    /// Watch `dir` for new game folders, sending [`Wake::Folder`] on `tx` when a log or a game
    /// folder changes ([`Watch::follow`] adds the games' logs); the heartbeat file's writes and
    /// every read (the follower's own included) wake nobody.
    pub fn start<K: Send + 'static>(dir: &Path, tx: Sender<Wake<K>>) -> Watch {
        use notify::{RecursiveMode, Watcher};
        let handler = move |res: notify::Result<notify::Event>| {
            use notify::event::{EventKind as K, ModifyKind};
            let relevant = match &res {
                // Opening and reading (this follower's own reads among them) change nothing.
                Ok(ev) if matches!(ev.kind, K::Access(_) | K::Modify(ModifyKind::Metadata(_))) => {
                    false
                }
                Ok(ev) => ev.paths.iter().any(|p| {
                    let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
                    name == "log.jsonl" || name.starts_with("game-")
                }),
                Err(_) => true,
            };
            if relevant {
                let _ = tx.send(Wake::Folder);
            }
        };
        match notify::recommended_watcher(handler) {
            Ok(mut w) => match w.watch(dir, RecursiveMode::NonRecursive) {
                Ok(()) => Watch::Notify(Notifier {
                    watcher: w,
                    logs: Vec::new(),
                    folders: Vec::new(),
                }),
                Err(e) => Watch::Poll(format!("change notification unavailable ({e})")),
            },
            Err(e) => Watch::Poll(format!("change notification unavailable ({e})")),
        }
    }

    /// Watch the log of every game `m` found (call it after [`MatchTail::poll`]): the log file
    /// itself once it is there, its game folder until then. Where neither can be watched (the
    /// system's watches used up), the follower polls instead, saying why.
    pub fn follow(&mut self, m: &MatchTail) {
        use notify::{RecursiveMode, Watcher};
        let Watch::Notify(n) = self else {
            return;
        };
        for g in &m.games {
            let k = g.number;
            if n.logs.contains(&k) {
                continue;
            }
            let folder = layout::game_dir(&m.dir, k);
            if n.watcher
                .watch(&g.path, RecursiveMode::NonRecursive)
                .is_ok()
            {
                n.logs.push(k);
                if let Some(i) = n.folders.iter().position(|f| *f == k) {
                    n.folders.swap_remove(i);
                    let _ = n.watcher.unwatch(&folder);
                }
            } else if !n.folders.contains(&k) {
                match n.watcher.watch(&folder, RecursiveMode::NonRecursive) {
                    Ok(()) => n.folders.push(k),
                    Err(e) if folder.is_dir() => {
                        *self = Watch::Poll(format!(
                            "change notification unavailable for game {k} ({e})"
                        ));
                        return;
                    }
                    // The folder is gone already: nothing to watch.
                    Err(_) => {}
                }
            }
        }
    }

    /// The longest the follower may wait before looking at the folder itself.
    pub fn poll_every(&self) -> Duration {
        match self {
            Watch::Notify(_) | Watch::Live => SAFETY_POLL,
            Watch::Poll(_) => FALLBACK_POLL,
        }
    }
}

/// Wait on `rx` at most `timeout`: the wakes that came (at least one, or none on time-out),
/// gathered so a burst of appends is read once.
pub fn wait<K>(rx: &Receiver<Wake<K>>, timeout: Duration) -> Vec<Wake<K>> {
    let mut out = Vec::new();
    match rx.recv_timeout(timeout) {
        Ok(w) => out.push(w),
        Err(RecvTimeoutError::Timeout) => return out,
        Err(RecvTimeoutError::Disconnected) => {
            // Nobody sends (no watcher, no keys): the wait is the poll period.
            std::thread::sleep(timeout);
            return out;
        }
    }
    while let Ok(w) = rx.try_recv() {
        out.push(w);
    }
    out
}
