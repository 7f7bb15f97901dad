//! The `@` rule for strings and URLs, and helpers that find and rewrite asset URLs.
//!
//! The engine stores a URL as the string `"@" + url` (`"@resdb:///<sha256>"`). So that a plain
//! string starting with `@` is not mistaken for a URL, a string longer than one character that
//! starts with `@` is written with one more `@` (`"@x"` → `"@@x"`). Reading: `@` followed by
//! anything but `@` is a URL; `@@…` loses one `@`; a lone `"@"` is a plain string.
//!
//! ```
//! use serde_brson::url::{self, StringValue};
//!
//! assert_eq!(url::classify("@resdb:///abc"), StringValue::Url("resdb:///abc"));
//! assert_eq!(url::classify("@@handle"), StringValue::Text("@handle".into()));
//! assert_eq!(url::escape("@handle"), "@@handle");
//! assert_eq!(url::encode_url("resdb:///abc"), "@resdb:///abc");
//! ```

use std::borrow::Cow;

use bson::{Bson, Document, RawBsonRef, RawDocument};

use crate::error::{Error, Result};

/// What a stored string means under the `@` rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StringValue<'a> {
    /// A plain string (unescaped).
    Text(Cow<'a, str>),
    /// A URL (without its `@`).
    Url(&'a str),
}

/// Classifies a stored string.
pub fn classify(stored: &str) -> StringValue<'_> {
    match stored.strip_prefix('@') {
        Some(rest) if rest.starts_with('@') => StringValue::Text(Cow::Borrowed(rest)),
        Some(rest) if !rest.is_empty() => StringValue::Url(rest),
        _ => StringValue::Text(Cow::Borrowed(stored)),
    }
}

/// Whether a stored string is a URL.
pub fn is_url(stored: &str) -> bool {
    matches!(classify(stored), StringValue::Url(_))
}

/// How a plain string is stored: one more `@` if it is longer than one character and starts
/// with `@`.
pub fn escape(text: &str) -> Cow<'_, str> {
    if text.len() > 1 && text.starts_with('@') { Cow::Owned(format!("@{text}")) } else { Cow::Borrowed(text) }
}

/// How a URL is stored: `"@" + url`.
pub fn encode_url(url: &str) -> String {
    format!("@{url}")
}

/// An asset URL, `<scheme>:///<sha256 hex>[.ext]` (`resdb` in Resonite, `neosdb` in Neos,
/// `packdb` in packages, `local`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AssetUrl<'a> {
    /// The scheme, e.g. `resdb`.
    pub scheme: &'a str,
    /// The asset's signature (the hex SHA-256 in engine-made URLs).
    pub signature: &'a str,
    /// The extension after the signature, without the dot (`webp`), if any.
    pub extension: Option<&'a str>,
}

impl<'a> AssetUrl<'a> {
    /// Parses `<scheme>:///<signature>[.ext]` (a URL without its `@`); `None` for other URLs
    /// (`https://…`).
    pub fn parse(url: &'a str) -> Option<Self> {
        let (scheme, rest) = url.split_once(":///")?;
        if scheme.is_empty()
            || !scheme.bytes().all(|b| b.is_ascii_alphanumeric())
            || rest.is_empty()
            || rest.contains('/')
        {
            return None;
        }
        let (signature, extension) = match rest.split_once('.') {
            Some((sig, ext)) => (sig, Some(ext)),
            None => (rest, None),
        };
        (!signature.is_empty()).then_some(AssetUrl { scheme, signature, extension })
    }
}

/// Every URL in a tree (without its `@`), in document order, collected from the raw payload
/// without decoding the tree (asset URLs and others: [`AssetUrl::parse`] tells them apart).
/// Iterative: safe on any depth a [`Payload`](crate::Payload) accepted.
pub fn urls(document: &RawDocument) -> Result<Vec<&str>> {
    let mut out = Vec::new();
    let mut stack = vec![document.iter()];
    while let Some(iter) = stack.last_mut() {
        let Some(item) = iter.next() else {
            stack.pop();
            continue;
        };
        let (_, value) = item.map_err(Error::from)?;
        match value {
            RawBsonRef::String(s) => {
                if let StringValue::Url(url) = classify(s) {
                    out.push(url);
                }
            }
            RawBsonRef::Document(doc) => stack.push(doc.iter()),
            RawBsonRef::Array(array) => {
                stack.push(RawDocument::from_bytes(array.as_bytes()).map_err(Error::from)?.iter())
            }
            _ => {}
        }
    }
    Ok(out)
}

/// Visits every URL in a tree and replaces those for which `rewrite` returns a new URL (given and
/// returned without the `@`). Returns how many were replaced. Iterative, so any depth is fine.
///
/// ```
/// use bson::doc;
///
/// let mut tree = doc! { "Assets": [ { "URL": { "ID": "x", "Data": "@resdb:///abc.webp" } } ], "Name": "@@not a url" };
/// let n = serde_brson::url::rewrite_urls(&mut tree, |url| {
///     url.strip_prefix("resdb:///").map(|rest| format!("https://assets.example/{rest}"))
/// });
/// assert_eq!(n, 1);
/// assert_eq!(tree.get_array("Assets").unwrap()[0].as_document().unwrap()
///     .get_document("URL").unwrap().get_str("Data").unwrap(), "@https://assets.example/abc.webp");
/// ```
pub fn rewrite_urls(document: &mut Document, mut rewrite: impl FnMut(&str) -> Option<String>) -> usize {
    let mut count = 0;
    let mut stack: Vec<&mut Bson> = document.iter_mut().map(|(_, v)| v).collect();
    stack.reverse();
    while let Some(value) = stack.pop() {
        match value {
            Bson::String(s) => {
                if let StringValue::Url(url) = classify(s) {
                    if let Some(new) = rewrite(url) {
                        *s = encode_url(&new);
                        count += 1;
                    }
                }
            }
            Bson::Document(doc) => {
                let start = stack.len();
                stack.extend(doc.iter_mut().map(|(_, v)| v));
                stack[start..].reverse();
            }
            Bson::Array(array) => {
                let start = stack.len();
                stack.extend(array.iter_mut());
                stack[start..].reverse();
            }
            _ => {}
        }
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_at_rule() {
        assert_eq!(classify("@"), StringValue::Text("@".into()));
        assert_eq!(classify(""), StringValue::Text("".into()));
        assert_eq!(classify("plain"), StringValue::Text("plain".into()));
        assert_eq!(classify("@@"), StringValue::Text("@".into()));
        assert_eq!(escape("@"), "@");
        assert_eq!(escape("@@"), "@@@");
        for text in ["@", "@@", "@x", "x@", "", "@@@y"] {
            assert_eq!(classify(&escape(text)), StringValue::Text(text.into()), "{text:?}");
        }
    }

    #[test]
    fn asset_urls() {
        let url = AssetUrl::parse("resdb:///c801bf39.webp").unwrap();
        assert_eq!((url.scheme, url.signature, url.extension), ("resdb", "c801bf39", Some("webp")));
        assert_eq!(AssetUrl::parse("neosdb:///abc").unwrap().extension, None);
        assert_eq!(AssetUrl::parse("https://example.com/x"), None);
    }
}
