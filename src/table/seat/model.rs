//! What a human's seat knows of its game, from the packets the table sent it, and what its keys
//! do (PURE: no clock, no socket; time comes in as milliseconds since the client started).
//!
//! The table speaks the contest's protocol: one JSON packet a frame, answered (when it asks)
//! with one text frame. The liveness probe (`NAME` during the game) is answered here, by the
//! seat itself; a request whose countdown ran out is answered with nothing at all, so the table
//! records a timeout, never a text.
use std::collections::BTreeMap;

use serde_json::Value;

use crate::core::werewolf::{Cut, Limits, cut};

/// The requests of the contest's protocol that need an answer from the seat's human.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ask {
    Talk,
    Whisper,
    Vote,
    Divine,
    Guard,
    Attack,
}

impl Ask {
    fn of(request: &str) -> Option<Ask> {
        Some(match request {
            "TALK" => Ask::Talk,
            "WHISPER" => Ask::Whisper,
            "VOTE" => Ask::Vote,
            "DIVINE" => Ask::Divine,
            "GUARD" => Ask::Guard,
            "ATTACK" => Ask::Attack,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Ask::Talk => "TALK",
            Ask::Whisper => "WHISPER",
            Ask::Vote => "VOTE",
            Ask::Divine => "DIVINE",
            Ask::Guard => "GUARD",
            Ask::Attack => "ATTACK",
        }
    }

    /// Whether the answer is an utterance (else a living seat's name, from the picker).
    pub fn speaks(self) -> bool {
        matches!(self, Ask::Talk | Ask::Whisper)
    }
}

/// The request awaiting the human's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pending {
    pub ask: Ask,
    /// When it arrived (ms since the client started).
    pub at_ms: u64,
    /// When the countdown ends: arrival + the `setting`'s action timeout (none when the table
    /// sent no timeout).
    pub deadline_ms: Option<u64>,
    pub remain_count: Option<i64>,
    pub remain_skip: Option<i64>,
}

/// One line of talk or whisper as the table saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Said {
    pub whisper: bool,
    pub day: i64,
    pub idx: i64,
    pub agent: String,
    pub text: String,
}

/// A line of the seat's record: talk, or what the table told it (executions, attacks, results).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Line {
    Said(Said),
    Told(String),
}

/// The rules the table sent in `setting`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rules {
    pub talk: Limits,
    pub whisper: Limits,
    pub action_ms: Option<u64>,
}

/// Everything the seat knows, and the human's text field and picker.
#[derive(Debug, Clone, Default)]
pub struct SeatModel {
    /// The NAME answer (team + number).
    pub name: String,
    pub game_id: Option<String>,
    pub day: i64,
    /// The seat's character's name at the table.
    pub me: Option<String>,
    /// The character's description (INITIALIZE's `profile`).
    pub profile: Option<String>,
    /// Every seat's status (`ALIVE` / `DEAD`), by name.
    pub status: BTreeMap<String, String>,
    /// The roles the seat knows (its own; a werewolf's fellow wolves; all after FINISH).
    pub roles: BTreeMap<String, String>,
    pub rules: Option<Rules>,
    pub lines: Vec<Line>,
    pub pending: Option<Pending>,
    /// The text field: a string of characters (full-width ones included); `cursor` counts
    /// characters, not bytes.
    pub input: String,
    pub cursor: usize,
    /// The picker's place among [`SeatModel::targets`].
    pub pick: usize,
    /// The last thing the client did or saw, for the status line.
    pub note: String,
    pub finished: bool,
    /// Liveness probes answered.
    pub probes: u32,
    /// Requests the table asked the human so far (numbered on the status line).
    pub asked: u32,
}

/// What the model asks its shell to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Out {
    /// Send this text frame.
    Send(String),
    /// Leave (the human quit).
    Quit,
}

/// A key as the model reads it (the shell maps terminal keys to these).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Key {
    Char(char),
    Backspace,
    Delete,
    Left,
    Right,
    Home,
    End,
    Up,
    Down,
    Enter,
    Skip,
    Over,
    Quit,
}

fn limits_of(v: &Value) -> Limits {
    let l = &v["max_length"];
    let n = |k: &str| l[k].as_u64().and_then(|x| u32::try_from(x).ok());
    Limits {
        // A key the table leaves out is no limit (the official config's -1).
        base_length: n("base_length").unwrap_or(u32::MAX),
        mention_length: n("mention_length").unwrap_or(u32::MAX),
        per_talk: n("per_talk"),
        count_in_word: l["count_in_word"].as_bool().unwrap_or(false),
        count_spaces: l["count_spaces"].as_bool().unwrap_or(false),
    }
}

fn str_map(v: &Value) -> Option<BTreeMap<String, String>> {
    Some(
        v.as_object()?
            .iter()
            .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
            .collect(),
    )
}

impl SeatModel {
    pub fn new(name: &str) -> SeatModel {
        SeatModel {
            name: name.to_string(),
            note: "connecting…".into(),
            ..SeatModel::default()
        }
    }

    /// The seat's own role, once dealt.
    pub fn role(&self) -> Option<&str> {
        self.roles.get(self.me.as_deref()?).map(String::as_str)
    }

    /// The living seats, in the table's order (the picker's choices).
    pub fn targets(&self) -> Vec<&str> {
        self.status
            .iter()
            .filter(|(_, s)| s.as_str() == "ALIVE")
            .map(|(n, _)| n.as_str())
            .collect()
    }

    /// The limits of the pending utterance, if one is asked.
    pub fn limits(&self) -> Option<Limits> {
        let p = self.pending.as_ref()?;
        let r = self.rules.as_ref()?;
        match p.ask {
            Ask::Talk => Some(r.talk),
            Ask::Whisper => Some(r.whisper),
            _ => None,
        }
    }

    /// What the table would make of the text field, by the core's own count and cut.
    pub fn meter(&self) -> Option<Cut> {
        let limits = self.limits()?;
        let names: Vec<String> = self.status.keys().cloned().collect();
        let me = self.me.clone().unwrap_or_default();
        Some(cut(&self.input, &names, &me, &limits))
    }

    /// Seconds left on the countdown (rounded up), if one runs.
    pub fn left_ms(&self, now_ms: u64) -> Option<u64> {
        let d = self.pending.as_ref()?.deadline_ms?;
        Some(d.saturating_sub(now_ms))
    }

    /// A text frame from the table, at `now_ms`; returns what to send (the NAME answer, the
    /// probe's answer), if anything. A frame that is not a packet is noted and ignored.
    pub fn packet(&mut self, text: &str, now_ms: u64) -> Vec<Out> {
        let Ok(v) = serde_json::from_str::<Value>(text) else {
            self.note = "the table sent a frame that is not JSON (ignored)".into();
            return Vec::new();
        };
        let request = v["request"].as_str().unwrap_or("").to_string();
        if let Some(s) = v.get("setting").filter(|s| s.is_object()) {
            self.rules = Some(Rules {
                talk: limits_of(&s["talk"]),
                whisper: limits_of(&s["whisper"]),
                action_ms: s["timeout"]["action"].as_u64(),
            });
        }
        if let Some(info) = v.get("info").filter(|i| i.is_object()) {
            self.info(info, &request);
        }
        for (key, whisper) in [("talk_history", false), ("whisper_history", true)] {
            for t in v[key].as_array().into_iter().flatten() {
                self.heard(t, whisper);
            }
        }
        if request == "NAME" {
            // At the door, the seat's name; during the game, the liveness probe after a
            // timeout: the request it followed is over.
            if self.game_id.is_some() {
                self.probes += 1;
                if self.pending.take().is_some() {
                    self.clear_input();
                }
                self.note = "the table checked the connection (answered by itself)".into();
            } else {
                self.note = format!("answered NAME as {}", self.name);
            }
            return vec![Out::Send(self.name.clone())];
        }
        if request == "FINISH" {
            self.finished = true;
            self.pending = None;
            self.note = "the game is over: every role is shown".into();
        }
        match Ask::of(&request) {
            Some(ask) => {
                if self.pending.as_ref().is_none_or(|p| p.ask != ask) {
                    self.clear_input();
                }
                let info = &v["info"];
                self.pending = Some(Pending {
                    ask,
                    at_ms: now_ms,
                    deadline_ms: self
                        .rules
                        .as_ref()
                        .and_then(|r| r.action_ms)
                        .map(|a| now_ms + a),
                    remain_count: info["remain_count"].as_i64(),
                    remain_skip: info["remain_skip"].as_i64(),
                });
                self.pick = self.first_pick();
                self.asked += 1;
                self.note = format!("request {}: the table asks you: {}", self.asked, ask.name());
            }
            None if !request.is_empty() && request != "FINISH" => {
                self.note = format!("the table: {request}");
            }
            None => {}
        }
        Vec::new()
    }

    /// The picker starts on the first living seat other than this one.
    fn first_pick(&self) -> usize {
        let me = self.me.as_deref().unwrap_or("");
        self.targets().iter().position(|n| *n != me).unwrap_or(0)
    }

    fn info(&mut self, info: &Value, request: &str) {
        if let Some(g) = info["game_id"].as_str() {
            self.game_id = Some(g.to_string());
        }
        if let Some(d) = info["day"].as_i64() {
            self.day = d;
        }
        if let Some(a) = info["agent"].as_str() {
            self.me = Some(a.to_string());
        }
        if let Some(p) = info["profile"].as_str() {
            self.profile = Some(p.to_string());
        }
        if let Some(s) = str_map(&info["status_map"]) {
            self.status = s;
        }
        if let Some(r) = str_map(&info["role_map"]) {
            // Roles learnt stay known (the role map of a later packet may say less).
            self.roles.extend(r);
        }
        if request != "DAILY_INITIALIZE" {
            return;
        }
        let day = self.day;
        let mut told = |s: String| self.lines.push(Line::Told(s));
        if let Some(list) = info["vote_list"].as_array() {
            let votes: Vec<String> = list
                .iter()
                .filter_map(|v| {
                    Some(format!(
                        "{}→{}",
                        v["agent"].as_str()?,
                        v["target"].as_str()?
                    ))
                })
                .collect();
            if !votes.is_empty() {
                told(format!("day {}: votes {}", day - 1, votes.join(", ")));
            }
        }
        if let Some(e) = info["executed_agent"].as_str() {
            told(format!("day {}: {e} was executed", day - 1));
        }
        if let Some(a) = info["attacked_agent"].as_str() {
            told(format!("night {}: {a} was attacked", day - 1));
        }
        for (key, what) in [("divine_result", "divined"), ("medium_result", "medium")] {
            let r = &info[key];
            if let (Some(t), Some(s)) = (r["target"].as_str(), r["result"].as_str()) {
                told(format!("{what}: {t} is {s}"));
            }
        }
        told(format!("— day {day} —"));
    }

    fn heard(&mut self, t: &Value, whisper: bool) {
        let (Some(agent), Some(text)) = (t["agent"].as_str(), t["text"].as_str()) else {
            return;
        };
        let said = Said {
            whisper,
            day: t["day"].as_i64().unwrap_or(self.day),
            idx: t["idx"].as_i64().unwrap_or(-1),
            agent: agent.to_string(),
            text: text.to_string(),
        };
        // A history repeats nothing in the protocol, but a line seen twice is shown once.
        let seen = self.lines.iter().any(|l| {
            matches!(l, Line::Said(s) if s.whisper == whisper && s.day == said.day && s.idx == said.idx && said.idx >= 0)
        });
        if !seen {
            self.lines.push(Line::Said(said));
        }
    }

    fn clear_input(&mut self) {
        self.input.clear();
        self.cursor = 0;
    }

    /// The clock reached `now_ms`: a countdown that ran out ends the request, and NOTHING is
    /// sent (the table records a timeout).
    pub fn tick(&mut self, now_ms: u64) {
        if self.left_ms(now_ms) == Some(0)
            && let Some(p) = self.pending.take()
        {
            self.note = format!(
                "time is up: nothing was sent for {} (the table records a timeout)",
                p.ask.name()
            );
        }
    }

    /// Send `text` as the answer to the pending request.
    fn answer(&mut self, text: String) -> Vec<Out> {
        let Some(p) = self.pending.take() else {
            return Vec::new();
        };
        self.note = format!("sent for {}: {text}", p.ask.name());
        self.clear_input();
        vec![Out::Send(text)]
    }

    fn byte_at(&self, chars: usize) -> usize {
        self.input
            .char_indices()
            .nth(chars)
            .map_or(self.input.len(), |(i, _)| i)
    }

    /// A key of the human's.
    pub fn key(&mut self, k: Key) -> Vec<Out> {
        if k == Key::Quit {
            return vec![Out::Quit];
        }
        let Some(ask) = self.pending.as_ref().map(|p| p.ask) else {
            if !matches!(k, Key::Up | Key::Down) {
                self.note = "no request awaits an answer".into();
            }
            return Vec::new();
        };
        if ask.speaks() {
            let n = self.input.chars().count();
            match k {
                Key::Char(c) if !c.is_control() => {
                    let at = self.byte_at(self.cursor);
                    self.input.insert(at, c);
                    self.cursor += 1;
                }
                Key::Backspace if self.cursor > 0 => {
                    self.cursor -= 1;
                    let at = self.byte_at(self.cursor);
                    self.input.remove(at);
                }
                Key::Delete if self.cursor < n => {
                    let at = self.byte_at(self.cursor);
                    self.input.remove(at);
                }
                Key::Left => self.cursor = self.cursor.saturating_sub(1),
                Key::Right => self.cursor = (self.cursor + 1).min(n),
                Key::Home => self.cursor = 0,
                Key::End => self.cursor = n,
                Key::Skip => return self.answer("Skip".into()),
                Key::Over => return self.answer("Over".into()),
                Key::Enter => {
                    let t = self.input.trim();
                    if t.is_empty() {
                        self.note =
                            "nothing to send: type your words, or Skip (F5) / Over (F6)".into();
                    } else if matches!(t, "Skip" | "Over" | "ForceSkip") {
                        self.note =
                            format!("the table reads the word {t} as an action: use F5 / F6");
                    } else {
                        let text = self.input.clone();
                        return self.answer(text);
                    }
                }
                _ => {}
            }
            return Vec::new();
        }
        let targets = self.targets().len();
        match k {
            Key::Up if targets > 0 => self.pick = (self.pick + targets - 1) % targets,
            Key::Down if targets > 0 => self.pick = (self.pick + 1) % targets,
            Key::Enter => {
                if let Some(t) = self.targets().get(self.pick).map(|s| s.to_string()) {
                    return self.answer(t);
                }
            }
            _ => {}
        }
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    const INIT: &str = r#"{"request":"INITIALIZE","info":{"game_id":"g","day":0,"agent":"Alice","profile":"Age: 20","status_map":{"Alice":"ALIVE","Bob":"ALIVE","Carol":"DEAD"},"role_map":{"Alice":"SEER"}},"setting":{"talk":{"max_length":{"count_in_word":false,"count_spaces":false,"mention_length":5,"base_length":5}},"whisper":{"max_length":{"count_in_word":false,"count_spaces":false,"mention_length":5,"base_length":5}},"timeout":{"action":1000,"response":1000}}}"#;

    fn seated() -> SeatModel {
        let mut m = SeatModel::new("human1");
        assert_eq!(
            m.packet(r#"{"request":"NAME"}"#, 0),
            vec![Out::Send("human1".into())]
        );
        assert!(m.packet(INIT, 10).is_empty());
        m
    }

    #[test]
    fn seat_probe_answered_by_itself_and_ends_the_request() {
        let mut m = seated();
        m.packet(r#"{"request":"TALK","info":{"day":1,"agent":"Alice","status_map":{"Alice":"ALIVE","Bob":"ALIVE"},"role_map":{"Alice":"SEER"}}}"#, 20);
        m.key(Key::Char('x'));
        assert_eq!(
            m.packet(r#"{"request":"NAME"}"#, 30),
            vec![Out::Send("human1".into())]
        );
        assert!(m.pending.is_none() && m.input.is_empty() && m.probes == 1);
    }

    #[test]
    fn seat_countdown_end_sends_nothing() {
        let mut m = seated();
        m.packet(r#"{"request":"TALK","info":{"day":1,"agent":"Alice","status_map":{"Alice":"ALIVE","Bob":"ALIVE"},"role_map":{"Alice":"SEER"}}}"#, 100);
        m.key(Key::Char('あ'));
        m.tick(1099);
        assert!(m.pending.is_some());
        m.tick(1100);
        assert!(m.pending.is_none());
        assert!(m.key(Key::Enter).is_empty());
    }

    #[test]
    fn seat_full_width_input_edits_by_character() {
        let mut m = seated();
        m.packet(r#"{"request":"TALK","info":{"day":1,"agent":"Alice","status_map":{"Alice":"ALIVE","Bob":"ALIVE"},"role_map":{"Alice":"SEER"}}}"#, 100);
        for c in "おはよう".chars() {
            m.key(Key::Char(c));
        }
        m.key(Key::Left);
        m.key(Key::Backspace);
        assert_eq!(m.input, "おはう");
        let cut = m.meter().unwrap();
        assert_eq!((cut.base, cut.cut), (3, false));
        for c in "ございます　@Bob こんにちは皆さん".chars() {
            m.key(Key::End);
            m.key(Key::Char(c));
        }
        let cut = m.meter().unwrap();
        assert_eq!(cut.mention_name.as_deref(), Some("Bob"));
        assert!(cut.cut);
        assert_eq!(cut.text, "おはうござ @Bob  こんにちは");
        assert_eq!(
            m.key(Key::Enter),
            vec![Out::Send("おはうございます　@Bob こんにちは皆さん".into())]
        );
    }

    #[test]
    fn seat_skip_and_over_are_keys_not_words() {
        let mut m = seated();
        m.packet(r#"{"request":"TALK","info":{"day":1,"agent":"Alice","status_map":{"Alice":"ALIVE","Bob":"ALIVE"},"role_map":{"Alice":"SEER"}}}"#, 100);
        for c in "Over".chars() {
            m.key(Key::Char(c));
        }
        assert!(m.key(Key::Enter).is_empty());
        assert_eq!(m.key(Key::Skip), vec![Out::Send("Skip".into())]);
    }

    #[test]
    fn seat_picker_offers_the_living_only() {
        let mut m = seated();
        m.packet(r#"{"request":"VOTE","info":{"day":1,"agent":"Alice","status_map":{"Alice":"ALIVE","Bob":"ALIVE","Carol":"DEAD"},"role_map":{"Alice":"SEER"}}}"#, 100);
        assert_eq!(m.targets(), vec!["Alice", "Bob"]);
        assert_eq!(m.key(Key::Enter), vec![Out::Send("Bob".into())]);
    }
}
