//! [`ValueRead`], the reader over a `serde_json::Value` tree, and the depth checks it needs.

use std::collections::HashMap;

use serde_json::Value;

use super::{Peek, Read, Ref};
use crate::coerce::Num;
use crate::error::{Code, Error, Result};

enum Frame<'de> {
    Arr(std::slice::Iter<'de, Value>),
    Obj(serde_json::map::Iter<'de>),
}

/// The reader over a `serde_json::Value`.
pub(crate) struct ValueRead<'de> {
    next: Option<&'de Value>,
    stack: Vec<Frame<'de>>,
    /// The heights of the containers skips walked (by address), once a look-ahead skipped one.
    heights: Option<HashMap<usize, usize>>,
}

impl<'de> ValueRead<'de> {
    pub(crate) fn new(value: &'de Value) -> Self {
        ValueRead { next: Some(value), stack: Vec::new(), heights: None }
    }

    fn take(&mut self) -> Result<&'de Value> {
        self.next.take().ok_or_else(|| Error::new(Code::Eof))
    }
}

impl<'de> Read<'de> for ValueRead<'de> {
    type Loc = Option<&'de Value>;
    const TRACK: bool = true;

    fn loc(&self) -> Self::Loc {
        self.next
    }

    fn seek(&mut self, loc: Self::Loc) {
        self.next = loc;
    }

    fn ident(&self) -> usize {
        self.next.map_or(0, |v| std::ptr::from_ref(v) as usize)
    }

    fn peek(&mut self) -> Result<Peek> {
        Ok(match self.next.ok_or_else(|| Error::new(Code::Eof))? {
            Value::Null => Peek::Null,
            Value::Bool(true) => Peek::True,
            Value::Bool(false) => Peek::False,
            Value::Number(_) => Peek::Num,
            Value::String(_) => Peek::Str,
            Value::Array(_) => Peek::Arr,
            Value::Object(_) => Peek::Obj,
        })
    }

    fn is_empty_object(&mut self) -> Result<bool> {
        Ok(matches!(self.next, Some(Value::Object(m)) if m.is_empty()))
    }

    fn null(&mut self) -> Result<()> {
        self.take().map(drop)
    }

    fn boolean(&mut self) -> Result<bool> {
        Ok(matches!(self.take()?, Value::Bool(true)))
    }

    fn number(&mut self) -> Result<Num> {
        match self.take()? {
            Value::Number(n) => Ok(Num::from_json(n)),
            _ => Err(Error::syntax("expected a number")),
        }
    }

    fn string<'s>(&'s mut self) -> Result<Ref<'de, 's>> {
        match self.take()? {
            Value::String(s) => Ok(Ref::Borrowed(s)),
            _ => Err(Error::syntax("expected a string")),
        }
    }

    fn begin_array(&mut self) -> Result<()> {
        match self.take()? {
            Value::Array(a) => {
                self.stack.push(Frame::Arr(a.iter()));
                Ok(())
            }
            _ => Err(Error::syntax("expected an array")),
        }
    }

    fn next_element(&mut self, _first: bool) -> Result<bool> {
        match self.stack.last_mut() {
            Some(Frame::Arr(it)) => match it.next() {
                Some(v) => {
                    self.next = Some(v);
                    Ok(true)
                }
                None => {
                    self.stack.pop();
                    Ok(false)
                }
            },
            _ => Err(Error::syntax("not in an array")),
        }
    }

    fn begin_object(&mut self) -> Result<()> {
        match self.take()? {
            Value::Object(m) => {
                self.stack.push(Frame::Obj(m.iter()));
                Ok(())
            }
            _ => Err(Error::syntax("expected an object")),
        }
    }

    fn next_key<'s>(&'s mut self, _first: bool) -> Result<Option<Ref<'de, 's>>> {
        match self.stack.last_mut() {
            Some(Frame::Obj(it)) => match it.next() {
                Some((k, v)) => {
                    self.next = Some(v);
                    Ok(Some(Ref::Borrowed(k)))
                }
                None => {
                    self.stack.pop();
                    Ok(None)
                }
            },
            _ => Err(Error::syntax("not in an object")),
        }
    }

    fn number_array(&mut self, out: &mut [Num; 16]) -> Result<Option<usize>> {
        match self.next {
            Some(Value::Array(items)) if items.len() <= out.len() && items.iter().all(Value::is_number) => {
                for (slot, item) in out.iter_mut().zip(items) {
                    if let Value::Number(n) = item {
                        *slot = Num::from_json(n);
                    }
                }
                self.next = None;
                Ok(Some(items.len()))
            }
            _ => Ok(None),
        }
    }

    fn skip(&mut self, depth: usize) -> Result<()> {
        let v = self.take()?;
        match &mut self.heights {
            None => check_depth(v, depth),
            Some(heights) => {
                if height(v, heights) > depth {
                    Err(Error::new(Code::Depth(depth)))
                } else {
                    Ok(())
                }
            }
        }
    }

    fn skip_ahead(&mut self, depth: usize) -> Result<()> {
        if matches!(self.next, Some(Value::Array(_) | Value::Object(_))) && self.heights.is_none() {
            self.heights = Some(HashMap::new());
        }
        self.skip(depth)
    }

    type Memo = Option<HashMap<usize, usize>>;

    fn take_memo(&mut self) -> Self::Memo {
        self.heights.take()
    }

    fn set_memo(&mut self, memo: Self::Memo) {
        self.heights = memo;
    }

    fn raw(&mut self, depth: usize, out: &mut String) -> Result<()> {
        let v = self.take()?;
        check_depth(v, depth)?;
        out.push_str(&serde_json::to_string(v).map_err(|e| Error::store(e.to_string()))?);
        Ok(())
    }

    fn end(&mut self) -> Result<()> {
        Ok(())
    }

    fn position(&self, e: Error) -> Error {
        e
    }

    fn position_at(&self, e: Error, _ident: usize) -> Error {
        e
    }

    fn path_at(&self, _offset: Option<usize>) -> String {
        String::new()
    }
}

/// How deep `v` nests (0 for a scalar, 1 for `[]`), without recursion; walks only the containers
/// not in `heights` and records them there.
fn height(v: &Value, heights: &mut HashMap<usize, usize>) -> usize {
    enum Children<'a> {
        Arr(std::slice::Iter<'a, Value>),
        Obj(serde_json::map::Values<'a>),
    }
    fn children(v: &Value) -> Option<Children<'_>> {
        match v {
            Value::Array(a) => Some(Children::Arr(a.iter())),
            Value::Object(m) => Some(Children::Obj(m.values())),
            _ => None,
        }
    }
    let key = |v: &Value| std::ptr::from_ref(v) as usize;
    let Some(first) = children(v) else {
        return 0;
    };
    if let Some(&h) = heights.get(&key(v)) {
        return h;
    }
    // (container, its remaining children, the greatest height of its children so far)
    let mut stack = vec![(v, first, 0)];
    while let Some((_, rest, most)) = stack.last_mut() {
        let next = match rest {
            Children::Arr(it) => it.next(),
            Children::Obj(it) => it.next(),
        };
        match next {
            Some(child) => {
                if let Some(grand) = children(child) {
                    match heights.get(&key(child)) {
                        Some(&h) => *most = (*most).max(h),
                        None => stack.push((child, grand, 0)),
                    }
                }
            }
            None => {
                let Some((done, _, most)) = stack.pop() else {
                    break;
                };
                let h = most + 1;
                heights.insert(key(done), h);
                match stack.last_mut() {
                    Some((_, _, parent)) => *parent = (*parent).max(h),
                    None => return h,
                }
            }
        }
    }
    0
}

/// Rejects a value nesting deeper than `depth` (iteratively).
fn check_depth(v: &Value, depth: usize) -> Result<()> {
    let mut stack: Vec<(&Value, usize)> = vec![(v, 0)];
    while let Some((v, d)) = stack.pop() {
        let children: Box<dyn Iterator<Item = &Value>> = match v {
            Value::Array(a) => Box::new(a.iter()),
            Value::Object(m) => Box::new(m.values()),
            _ => continue,
        };
        if d >= depth {
            return Err(Error::new(Code::Depth(depth)));
        }
        stack.extend(children.map(|c| (c, d + 1)));
    }
    Ok(())
}
