//! Rules cited by their profile's own numbers: every entry and refusal of any game goes through
//! the profile's article map (`[articles]`, `core::articles`) on its way out of `decide` and
//! `due`. A chess profile without a map cites the 2003 numbers; a shogi profile's map gives the
//! Denryu-sen articles.
use super::*;
use crate::core::articles::{Article, is_kit_clause};

impl Game {
    /// The article of one of the shogi rules, from the profile.
    pub(super) fn art(&self, a: Article) -> &str {
        self.profile.article(a)
    }

    /// An entry citing this profile's article for what it records: the entry kind's own article
    /// when the map gives one, else `over` (the command's, e.g. 13.6 for a no-show), else the
    /// article for the kit's clause. An entry already citing an article of the profile's own
    /// (not a clause the kit names) is left as it is.
    pub(super) fn cited(&self, mut e: Event, over: Option<&str>) -> Event {
        if !is_kit_clause(&e.clause) {
            return e;
        }
        let art = self
            .profile
            .cite_entry(&e.kind_name())
            .or(over)
            .unwrap_or_else(|| self.profile.cite(&e.clause));
        e.clause = art.into();
        e
    }

    /// A refusal citing this profile's article (`over` first, as in [`Game::cited`]).
    pub(super) fn cited_refusal(&self, mut r: Refusal, over: Option<&str>) -> Refusal {
        if let Some(c) = &r.clause
            && is_kit_clause(c)
        {
            let art = over.unwrap_or_else(|| self.profile.cite(c));
            r.clause = Some(art.to_string().into());
        }
        r.message = self.reword(&r.message);
        r
    }

    /// `text` with the 2003 clauses in its wording replaced by this profile's articles (for
    /// refusals and the board's panels; unchanged without a map).
    pub fn reword(&self, text: &str) -> String {
        if self.profile.articles.is_none() {
            return text.to_string();
        }
        crate::core::articles::reword(text, |c| self.profile.cite(c))
    }

    /// The article this game's rules cite where the kit names the 2003 clause `clause` (for the
    /// shell's summaries and the report's headings): the clause itself without a map.
    pub fn cites<'a>(&'a self, clause: &'a str) -> &'a str {
        self.profile.cite(clause)
    }
}
