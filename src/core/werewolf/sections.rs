//! The sections a werewolf entry cites: the regulation's section (its Japanese heading, with the
//! English one of the INLG text) or, where the regulation is silent, the official server's file,
//! or the kit's own rule where the kit does better than the official server.
pub const DAY: &str =
    "regulation 注意事項 (a day: morning, talk, vote, night); official server logic/game.go";
pub const ROLES: &str = "regulation 開催するゲームの役職について (roles); characters: キャラクター設定について; drawn from the seed";
pub const PROTOCOL: &str =
    "official server logic/common.go, model/agent.go (requests, packets, answers)";
pub const TALK: &str = "regulation 注意事項 (talk in turns, random order, Skip and Over); official server logic/communication.go";
pub const LENGTH: &str = "regulation １発話あたりの発話上限について (limit per utterance); official server util/game_util.go";
pub const SKIP: &str = "regulation 注意事項 (Skip, Over); official server logic/communication.go (max_skip, empty text)";
pub const TARGETS: &str =
    "regulation 投票、襲撃、占い先などの指定方法 (a target is a character's name only)";
pub const VOTE: &str = "regulation 注意事項 (one vote each, the most voted executed); official server logic/execution.go, logic/vote.go";
pub const TIE: &str = "official server logic/execution.go, logic/attack.go (a tie drawn at random); the draw from the seed (docs/log-format.md)";
pub const DIVINE: &str =
    "regulation 開催するゲームの役職について (seer); official server logic/divine.go";
pub const GUARD: &str =
    "regulation 開催するゲームの役職について (bodyguard); official server logic/guard.go";
pub const ATTACK: &str =
    "regulation 開催するゲームの役職について (werewolf); official server logic/attack.go";
pub const WIN: &str =
    "official server util/game_util.go CalcWinSideTeam (werewolves >= humans, or no werewolf)";
pub const ERRORS: &str = "official server logic/game.go shouldFinish (seats in error >= seats x max_continue_error_ratio: no winner)";
pub const TIMEOUT: &str = "regulation 注意事項 (forced timeout, late talk ignored); official server model/agent.go (NAME probe)";
pub const UNSOLICITED: &str =
    "kit: a frame no request awaits is recorded, never taken as the next answer";
pub const BINARY: &str =
    "kit: the protocol answers in text frames; a binary frame is recorded and refused";
pub const OVERSIZE: &str =
    "kit: profile table.max_frame_bytes; the frame is refused and recorded, the seat stays";
pub const CLOSED: &str =
    "official server model/agent.go (a closed connection puts the seat in error)";
pub const ARBITER: &str = "kit: the arbiter's acts (pause, resume, note, eject, readmit, ruling)";
pub const RESTART: &str =
    "kit: profile table.on_restart (resume where the log stands, or end with no winner)";
