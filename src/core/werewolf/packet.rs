//! The JSON frames the seats receive, as the official server builds them (model/packet.go,
//! model/info.go, model/setting.go, model/talk.go, logic/common.go `buildInfo`): keys in its order,
//! maps sorted by name, unset values left out. aiwolf-nlp-common 0.7.0 parses them.
use std::collections::BTreeMap;

use serde::Serialize;

use super::event::Request;
use super::profile::{CommRules, Profile, Role};
use super::table::{ActState, Judge, Table, TalkRec};

#[derive(Serialize)]
struct MaxCount {
    per_agent: u32,
    per_day: u32,
}

#[derive(Serialize)]
struct MaxLength {
    count_in_word: bool,
    count_spaces: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    per_talk: Option<u32>,
    mention_length: u32,
    base_length: u32,
}

#[derive(Serialize)]
struct Comm {
    max_count: MaxCount,
    max_length: MaxLength,
    max_skip: u32,
}

impl Comm {
    fn of(c: &CommRules) -> Comm {
        Comm {
            max_count: MaxCount {
                per_agent: c.per_agent,
                per_day: c.per_day,
            },
            max_length: MaxLength {
                count_in_word: c.count_in_word,
                count_spaces: c.count_spaces,
                per_talk: c.per_talk,
                mention_length: c.mention_length,
                base_length: c.base_length,
            },
            max_skip: c.max_skip,
        }
    }
}

#[derive(Serialize)]
struct VoteS {
    max_count: u32,
    allow_self_vote: bool,
}

#[derive(Serialize)]
struct AttackS {
    max_count: u32,
    allow_self_vote: bool,
    allow_no_target: bool,
}

#[derive(Serialize)]
struct TimeoutS {
    action: u64,
    response: u64,
}

/// The `setting` object.
#[derive(Serialize)]
pub(super) struct Setting {
    agent_count: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_day: Option<u32>,
    vote_visibility: bool,
    talk: Comm,
    whisper: Comm,
    vote: VoteS,
    attack_vote: AttackS,
    timeout: TimeoutS,
    role_num_map: BTreeMap<String, u32>,
}

impl Setting {
    pub(super) fn of(p: &Profile) -> Setting {
        Setting {
            agent_count: p.table.seats,
            max_day: p.table.max_day,
            vote_visibility: p.table.vote_visibility,
            talk: Comm::of(&p.talk),
            whisper: Comm::of(&p.whisper),
            vote: VoteS {
                max_count: p.vote.max_count,
                allow_self_vote: p.vote.allow_self_vote,
            },
            attack_vote: AttackS {
                max_count: p.attack_vote.max_count,
                allow_self_vote: p.attack_vote.allow_self_vote,
                allow_no_target: p.attack_vote.allow_no_target,
            },
            timeout: TimeoutS {
                action: p.timeouts.action_ms,
                response: p.timeouts.response_ms,
            },
            role_num_map: p.roles.clone(),
        }
    }
}

#[derive(Serialize)]
struct JudgeJ {
    day: u32,
    agent: String,
    target: String,
    result: &'static str,
}

#[derive(Serialize)]
struct VoteJ {
    day: u32,
    agent: String,
    target: String,
}

#[derive(Serialize)]
struct TalkJ {
    idx: u32,
    day: u32,
    turn: u32,
    agent: String,
    text: String,
    skip: bool,
    over: bool,
}

#[derive(Serialize)]
struct Info {
    game_id: String,
    day: u32,
    agent: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    profile: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    medium_result: Option<JudgeJ>,
    #[serde(skip_serializing_if = "Option::is_none")]
    divine_result: Option<JudgeJ>,
    #[serde(skip_serializing_if = "Option::is_none")]
    executed_agent: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    attacked_agent: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    vote_list: Option<Vec<VoteJ>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    attack_vote_list: Option<Vec<VoteJ>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    remain_count: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    remain_skip: Option<i64>,
    status_map: BTreeMap<String, &'static str>,
    role_map: BTreeMap<String, &'static str>,
}

#[derive(Serialize)]
struct Packet {
    request: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    info: Option<Info>,
    #[serde(skip_serializing_if = "Option::is_none")]
    setting: Option<Setting>,
    #[serde(skip_serializing_if = "Option::is_none")]
    talk_history: Option<Vec<TalkJ>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    whisper_history: Option<Vec<TalkJ>>,
}

fn name(t: &Table, seat: usize) -> String {
    t.seats()
        .get(seat)
        .map(|s| s.name.clone())
        .unwrap_or_default()
}

fn judge(t: &Table, j: &Judge) -> JudgeJ {
    JudgeJ {
        day: j.day,
        agent: name(t, j.agent),
        target: name(t, j.target),
        result: j.species.name(),
    }
}

fn votes(t: &Table, day: u32, v: &[(usize, usize)]) -> Option<Vec<VoteJ>> {
    if v.is_empty() {
        return None;
    }
    Some(
        v.iter()
            .map(|&(a, b)| VoteJ {
                day,
                agent: name(t, a),
                target: name(t, b),
            })
            .collect(),
    )
}

fn talks(t: &Table, list: &[TalkRec]) -> Vec<TalkJ> {
    list.iter()
        .map(|r| TalkJ {
            idx: r.idx,
            day: r.day,
            turn: r.turn,
            agent: name(t, r.seat),
            text: r.text.clone(),
            skip: r.text == "Skip" || r.text == "ForceSkip",
            over: r.text == "Over",
        })
        .collect()
}

/// The character description sent with INITIALIZE: `label: value` lines (age, gender,
/// personality).
pub(super) fn description(t: &Table, seat: usize) -> Option<String> {
    let p = t.profile();
    let c = p.characters.get(t.seats().get(seat)?.character?)?;
    let e = &p.encoding;
    Some(format!(
        "{}: {}\n{}: {}\n{}: {}",
        e.age, c.age, e.gender, c.gender, e.personality, c.personality
    ))
}

/// The frame of `request` to `seat` as the table stands.
pub(super) fn frame(t: &Table, seat: usize, request: Request) -> String {
    if request == Request::Name {
        return r#"{"request":"NAME"}"#.to_string();
    }
    let Some(me) = t.seats().get(seat) else {
        return String::new();
    };
    let wolf = me.role == Role::Werewolf;
    let mut info = Info {
        game_id: t.game_id().to_string(),
        day: t.day(),
        agent: me.name.clone(),
        profile: None,
        medium_result: None,
        divine_result: None,
        executed_agent: None,
        attacked_agent: None,
        vote_list: None,
        attack_vote_list: None,
        remain_count: None,
        remain_skip: None,
        status_map: t
            .seats()
            .iter()
            .map(|s| (s.name.clone(), if s.alive { "ALIVE" } else { "DEAD" }))
            .collect(),
        role_map: BTreeMap::new(),
    };
    if let Some(y) = &t.yesterday {
        if me.role == Role::Medium {
            info.medium_result = y.medium.as_ref().map(|j| judge(t, j));
        }
        if me.role == Role::Seer {
            info.divine_result = y.divine.as_ref().map(|j| judge(t, j));
        }
        info.executed_agent = y.executed.map(|s| name(t, s));
        info.attacked_agent = y.attacked.map(|s| name(t, s));
        if t.profile().table.vote_visibility {
            info.vote_list = votes(t, y.day, &y.votes);
            if wolf {
                info.attack_vote_list = votes(t, y.day, &y.attack_votes);
            }
        }
    }
    if request == Request::Finish {
        info.role_map = t
            .seats()
            .iter()
            .map(|s| (s.name.clone(), s.role.name()))
            .collect();
    } else {
        info.role_map.insert(me.name.clone(), me.role.name());
        if wolf {
            for s in t.seats().iter().filter(|s| s.role == Role::Werewolf) {
                info.role_map.insert(s.name.clone(), s.role.name());
            }
        }
    }
    if let Some(ActState::Comm(c)) = &t.act {
        // The official server takes one off the count before it asks.
        let own = request == Request::Talk || request == Request::Whisper;
        info.remain_count = c
            .remain
            .get(&seat)
            .map(|r| if own { r - 1 } else { *r })
            .or(Some(0));
        info.remain_skip = c.skip.get(&seat).copied().or(Some(0));
    }
    let mut packet = Packet {
        request: request.name(),
        info: None,
        setting: None,
        talk_history: None,
        whisper_history: None,
    };
    match request {
        Request::Initialize | Request::DailyInitialize => {
            if request == Request::Initialize {
                info.profile = description(t, seat);
            }
            packet.setting = Some(Setting::of(t.profile()));
        }
        Request::DailyFinish | Request::Talk | Request::Whisper | Request::Attack => {
            let tc = t.talk_cursor.get(seat).copied().unwrap_or(0);
            let wc = t.whisper_cursor.get(seat).copied().unwrap_or(0);
            if request == Request::Talk || request == Request::DailyFinish {
                packet.talk_history = Some(talks(t, t.today.talks.get(tc..).unwrap_or(&[])));
            }
            if request == Request::Whisper
                || request == Request::Attack
                || (request == Request::DailyFinish && wolf)
            {
                packet.whisper_history = Some(talks(t, t.today.whispers.get(wc..).unwrap_or(&[])));
            }
        }
        _ => {}
    }
    packet.info = Some(info);
    serde_json::to_string(&packet).unwrap_or_default()
}
