//! The length of an utterance and its cut, by the official rule (official server:
//! util/game_util.go `CountLength`/`TrimLength`, logic/communication.go; regulation:
//! １発話あたりの発話上限について).
//!
//! Characters are Unicode code points; whitespace (Unicode White_Space, U+3000 included) is not
//! counted unless `count_spaces`. The first `@Name` of another seat splits the utterance: the
//! text before it is cut at `base_length`, the text after it at `mention_length`, and the table
//! sees `before + " @Name " + after`. A `per_talk` limit then caps the whole.
use serde::{Deserialize, Serialize};

/// The limits of one utterance (a profile's `talk` or `whisper`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    pub base_length: u32,
    pub mention_length: u32,
    pub per_talk: Option<u32>,
    pub count_in_word: bool,
    pub count_spaces: bool,
}

/// What the table made of an utterance.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cut {
    /// The text the table saw (empty: the utterance counts as `Over`).
    pub text: String,
    /// Counted length of the part before the first mention (the whole text without one).
    pub base: u32,
    /// Counted length of the part after the first mention (0 without one).
    pub mention: u32,
    /// The seat named by the first mention of another seat, if any.
    pub mention_name: Option<String>,
    /// Whether anything was cut off.
    pub cut: bool,
}

/// The official count of a piece of text.
pub fn count(text: &str, limits: &Limits) -> u32 {
    let n = if limits.count_in_word {
        text.split_whitespace().count()
    } else if limits.count_spaces {
        text.chars().count()
    } else {
        text.chars().filter(|c| !c.is_whitespace()).count()
    };
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Cut `text` to `length` by the official rule (`TrimLength`): whole words joined by one space
/// when counting words; else the first `length` counted characters, keeping the whitespace
/// between them. A length of 0 leaves a text without spaces counted whole, as the official
/// `trimByNonSpaceCount` does.
pub fn trim(text: &str, length: u32, limits: &Limits) -> String {
    if limits.count_in_word {
        let words: Vec<&str> = text.split_whitespace().collect();
        if words.len() <= length as usize {
            return text.to_string();
        }
        return words[..length as usize].join(" ");
    }
    if count(text, limits) <= length {
        return text.to_string();
    }
    if limits.count_spaces {
        return text.chars().take(length as usize).collect();
    }
    let mut counted = 0u32;
    for (i, c) in text.char_indices() {
        if !c.is_whitespace() {
            counted += 1;
            if counted == length {
                return text[..i + c.len_utf8()].to_string();
            }
        }
    }
    text.to_string()
}

/// Which mention splits an utterance that mentions several seats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MentionRule {
    /// The mention earliest in the text (at the same place, the first seat in seat order): the
    /// regulation's wording ("the part up to the mention").
    FirstInText,
    /// The first seat, in seat order, mentioned anywhere in the text: what the official server
    /// does (logic/communication.go compares each later mention with the one already found, never
    /// with its own place, so the seat order decides). With one mention both rules agree.
    #[default]
    FirstInSeatOrder,
}

/// The mention of a seat other than `own_name` that splits the text: its byte offset and the name.
fn first_mention<'a>(
    text: &str,
    names: &'a [String],
    own_name: &str,
    rule: MentionRule,
) -> Option<(usize, &'a str)> {
    let mut best: Option<(usize, &str)> = None;
    for name in names.iter().filter(|n| n.as_str() != own_name) {
        let needle = format!("@{name}");
        if let Some(at) = text.find(&needle)
            && best.is_none_or(|(b, _)| rule == MentionRule::FirstInText && at < b)
        {
            best = Some((at, name.as_str()));
        }
    }
    best
}

/// Counted lengths `(base, mention)` of an utterance: the part before the first mention of
/// another seat (earliest in the text) and the part after it (the mention itself is not counted).
pub fn count_length(text: &str, names: &[String], own_name: &str, limits: &Limits) -> (u32, u32) {
    count_length_with(text, names, own_name, limits, MentionRule::FirstInText)
}

/// [`count_length`] with the profile's choice of the splitting mention.
pub fn count_length_with(
    text: &str,
    names: &[String],
    own_name: &str,
    limits: &Limits,
    rule: MentionRule,
) -> (u32, u32) {
    match first_mention(text, names, own_name, rule) {
        Some((at, name)) => {
            let after = &text[at + 1 + name.len()..];
            (count(&text[..at], limits), count(after, limits))
        }
        None => (count(text, limits), 0),
    }
}

/// The text the table sees for an utterance, by the official rule (the mention earliest in the
/// text splits it).
pub fn cut(text: &str, names: &[String], own_name: &str, limits: &Limits) -> Cut {
    cut_with(text, names, own_name, limits, MentionRule::FirstInText)
}

/// [`cut`] with the profile's choice of the splitting mention.
pub fn cut_with(
    text: &str,
    names: &[String],
    own_name: &str,
    limits: &Limits,
    rule: MentionRule,
) -> Cut {
    let (base, mention) = count_length_with(text, names, own_name, limits, rule);
    let found = first_mention(text, names, own_name, rule);
    let (mut common, mut tail, mut mark) = match found {
        Some((at, name)) => (
            trim(&text[..at], limits.base_length, limits),
            trim(&text[at + 1 + name.len()..], limits.mention_length, limits),
            format!(" @{name} "),
        ),
        None => (
            trim(text, limits.base_length, limits),
            String::new(),
            String::new(),
        ),
    };
    let mut cut = match found {
        Some((at, name)) => common.len() < at || tail.len() < text.len() - (at + 1 + name.len()),
        None => common.len() < text.len(),
    };
    if let Some(per_talk) = limits.per_talk {
        let c = count(&common, limits);
        let m = count(&tail, limits);
        if c.saturating_add(m) > per_talk {
            cut = true;
            if c > per_talk {
                common = trim(&common, per_talk, limits);
                mark.clear();
                tail.clear();
            } else {
                tail = trim(&tail, per_talk - c, limits);
            }
        }
    }
    Cut {
        text: format!("{common}{mark}{tail}"),
        base,
        mention,
        mention_name: found.map(|(_, n)| n.to_string()),
        cut,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    const JA: Limits = Limits {
        base_length: 50,
        mention_length: 50,
        per_talk: None,
        count_in_word: false,
        count_spaces: false,
    };

    fn names() -> Vec<String> {
        ["ミナト", "タクミ", "ケンジ"].map(String::from).to_vec()
    }

    #[test]
    fn whitespace_is_not_counted_ideographic_space_included() {
        assert_eq!(count("あ い\u{3000}う", &JA), 3);
        assert_eq!(count("a b\tc", &JA), 3);
    }

    #[test]
    fn mention_of_self_does_not_split() {
        let c = cut("@ミナト こんにちは", &names(), "ミナト", &JA);
        assert_eq!(c.mention_name, None);
        assert_eq!(c.text, "@ミナト こんにちは");
    }

    #[test]
    fn first_mention_splits_and_text_is_rebuilt() {
        let c = cut("ねえ@タクミ元気?", &names(), "ミナト", &JA);
        assert_eq!(c.mention_name.as_deref(), Some("タクミ"));
        assert_eq!((c.base, c.mention), (2, 3));
        assert_eq!(c.text, "ねえ @タクミ 元気?");
        assert!(!c.cut);
    }
}
