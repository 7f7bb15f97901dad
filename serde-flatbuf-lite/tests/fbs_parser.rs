//! The `.fbs` parser: what flatc accepts we accept and what it rejects we reject (a table of schemas
//! judged by flatc 25.12.19 — `flatc --cpp` — with a loud SKIPPED line without it), errors with
//! file:line:column, includes (relative to the including file, include directories, repeats and cycles),
//! namespaces and name lookup, defaults, struct layout, slots.

mod common;

use std::path::Path;
use std::process::Command;

use common::flatc::flatc;
use serde_flatbuf_lite::fbs::{BaseType, Scalar, Schema, Type};

fn err(text: &str) -> String {
    Schema::parse_str("t.fbs", text).unwrap_err().to_string()
}

#[test]
fn errors_name_line_and_column() {
    assert_eq!(err("table T {\n  a:int\n}\n"), "schema error: t.fbs:3:1: expected `;`, found `}`");
    assert_eq!(err("table T { a:Nope; }"), "schema error: t.fbs:1:11: unknown type Nope");
    assert_eq!(
        err("table T { a:int (idd: 1); }"),
        "schema error: t.fbs:1:18: user-defined attribute \"idd\" must be declared before use (attribute \"idd\";)"
    );
    assert_eq!(
        err("enum E : float { A }"),
        "schema error: t.fbs:1:1: enum E: underlying type float is not an integer type"
    );
    assert_eq!(err("enum E : byte { A = 200 }"), "schema error: t.fbs:1:17: A = 200 does not fit byte");
    assert_eq!(err("table T { a:ubyte = 256; }"), "schema error: t.fbs:1:11: default 256 does not fit ubyte");
    assert_eq!(err("root_type X;"), "schema error: t.fbs:1:1: root_type X: no such table");
    assert_eq!(
        err("file_identifier \"ABC\";"),
        "schema error: t.fbs:1:1: file_identifier must be exactly 4 bytes, got \"ABC\""
    );
    assert_eq!(
        err("struct S { s:string; }"),
        "schema error: t.fbs:1:12: structs hold only scalars, enums, structs and fixed arrays"
    );
    assert!(err("table T { a:int (id: 1); b:int (id: 2); }").contains("field ids must be consecutive from 0"));
    assert!(err("struct A { b:B; } struct B { a:A; }").contains("nested more than 64 deep"));
}

#[test]
fn model_of_a_schema() {
    let s = Schema::parse_str(
        "m.fbs",
        r#"
        attribute "priority";
        namespace A.B;
        enum Flags : ushort (bit_flags) { X, Y, Z = 15 }
        struct P (force_align: 16) { a:byte; b:[long:2]; }
        table U { }
        union Any { U, Alias: U }
        table T (priority: 1) {
          f:Flags = "X Z";
          g:Flags = Y;
          o:int = null;
          any:Any;
          p:P;
          n:double = -inf;
          h:ulong = 0xFFFFFFFFFFFFFFFF;
          d:int (deprecated);
        }
        rpc_service S { Get(T):U (streaming: "none"); }
        root_type T;
        file_identifier "ABCD";
        file_extension "abc";
    "#,
    )
    .unwrap();
    let t = &s.objects[s.root.unwrap()];
    assert_eq!(t.name, "A.B.T");
    let names: Vec<(&str, u16)> = t.fields.iter().map(|f| (f.name.as_str(), f.slot)).collect();
    assert_eq!(
        names,
        [("f", 0), ("g", 1), ("o", 2), ("any_type", 3), ("any", 4), ("p", 5), ("n", 6), ("h", 7), ("d", 8)]
    );
    assert_eq!(t.fields[0].default, Some(Scalar::Int(1 | 1 << 15)));
    assert_eq!(t.fields[1].default, Some(Scalar::Int(2)));
    assert!(t.fields[2].optional && t.fields[2].default.is_none());
    assert_eq!(t.fields[6].default, Some(Scalar::Float(f64::NEG_INFINITY)));
    assert_eq!(t.fields[7].default, Some(Scalar::Int(u64::MAX.into())));
    assert!(t.fields[8].deprecated);
    let p = &s.objects[s.object("P").unwrap()];
    assert_eq!((p.size, p.align), (32, 16));
    assert_eq!(p.fields[1].offset, 8);
    assert_eq!(p.fields[1].ty, Type::Array(Box::new(Type::Scalar(BaseType::Long)), 2));
    let any = s.enums.iter().find(|e| e.name == "A.B.Any").unwrap();
    assert_eq!(any.values.iter().map(|v| v.name.as_str()).collect::<Vec<_>>(), ["NONE", "U", "Alias"]);
    assert_eq!(s.file_identifier, Some(*b"ABCD"));
    assert_eq!(s.file_extension.as_deref(), Some("abc"));
}

#[test]
fn includes_relative_repeated_cyclic_and_from_include_dirs() {
    let dir = std::env::temp_dir().join(format!("serde-flatbuf-lite-fbs-inc-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::create_dir_all(dir.join("lib")).unwrap();
    let w = |p: &str, t: &str| std::fs::write(dir.join(p), t).unwrap();
    w(
        "main.fbs",
        "include \"sub/a.fbs\";\ninclude \"sub/a.fbs\";\ninclude \"shared.fbs\";\nnamespace M;\ntable Root { a:N.A; s:L.Shared; }\nroot_type Root;\n",
    );
    // Relative to the including file: sub/a.fbs includes b.fbs next to it, which includes a.fbs back.
    w("sub/a.fbs", "include \"b.fbs\";\nnamespace N;\ntable A { b:B; }\n");
    w("sub/b.fbs", "include \"a.fbs\";\nnamespace N;\ntable B { x:int; }\n");
    w("lib/shared.fbs", "namespace L;\ntable Shared { y:int; }\nroot_type Shared;\n");
    let e = Schema::parse_file(dir.join("main.fbs"), &[]).unwrap_err();
    assert!(e.to_string().contains("main.fbs:3:1: include \"shared.fbs\" not found"), "{e}");
    let s = Schema::parse_file(dir.join("main.fbs"), &[dir.join("lib")]).unwrap();
    assert_eq!(s.files.len(), 4);
    assert_eq!(s.objects[s.root.unwrap()].name, "M.Root", "the main file's root_type wins");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Schemas flatc accepts (true) or rejects (false); we must agree.
const VERDICTS: &[(&str, bool)] = &[
    ("table T { a:int; } root_type T;", true),
    ("table T { a:int }", false),
    ("table T { a:[[int]]; }", false),
    ("table T { a:[int:2]; }", false),
    ("struct S2 { x:byte; } struct S { a:[int:2]; b:[S2:1]; }", true),
    ("enum E : ubyte { A, B } table T { e:E = B; }", true),
    ("enum E : ubyte { A, B } table T { e:E = C; }", false),
    ("enum E : ubyte { A = 2, B = 1 }", true),
    ("enum E : ubyte (bit_flags) { A, B = 7 }", true),
    ("enum E : ubyte (bit_flags) { A, B = 8 }", false),
    ("table T { o:int = null; }", true),
    ("struct S { o:int = null; }", false),
    ("table T { a:int (id: 1); b:int (id: 0); }", true),
    ("table T { a:int (id: 1); b:int; }", false),
    ("table U {} union X { U } table T { x:X (id: 1); y:int (id: 0); }", false),
    ("table U {} union X { U } table T { x:X (id: 2); y:int (id: 0); }", true),
    ("table T { a:int (custom); }", false),
    ("attribute \"custom\"; table T { a:int (custom); }", true),
    ("table T { a:float = nan; b:double = -infinity; c:float = 1e3; }", true),
    ("table T { a:int = 1.5; }", false),
    ("namespace A.B; table T {} namespace C; table U { t:A.B.T; }", true),
    ("namespace A.B; table T {} namespace A.C; table U { t:B.T; }", true),
    ("namespace A.B; table T {} namespace C; table U { t:T; }", false),
    ("table T { s:string (required); i:int (required); }", false),
    ("table T { s:string (key); } table R { v:[T]; }", true),
    ("struct S (force_align: 3) { a:int; }", false),
    ("struct S (force_align: 8) { a:int; }", true),
    ("table T { b:[ubyte] (nested_flatbuffer: \"T\"); }", true),
    ("table T { b:[ubyte] (nested_flatbuffer: \"Nope\"); }", false),
    ("table T {} rpc_service S { Get(T):T; }", true),
    ("table T { a:int; } table T { b:int; }", false),
    ("file_extension \"x\"; file_identifier \"ABCD\";", true),
    ("/* unterminated", false),
];

#[test]
fn accepts_and_rejects_what_flatc_does() {
    let Some(flatc) = flatc("the parser verdicts against flatc") else { return };
    let dir = std::env::temp_dir().join(format!("serde-flatbuf-lite-fbs-verdicts-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut wrong = Vec::new();
    for (i, (text, expected)) in VERDICTS.iter().enumerate() {
        let path = dir.join(format!("v{i}.fbs"));
        std::fs::write(&path, text).unwrap();
        let theirs = Command::new(&flatc).arg("--cpp").arg("-o").arg(dir.join("out")).arg(&path).output().unwrap();
        if theirs.status.success() != *expected {
            wrong.push(format!("flatc's verdict on {text}: {}", String::from_utf8_lossy(&theirs.stderr)));
        }
        let ours = Schema::parse_file(&path, &[]);
        if ours.is_ok() != *expected {
            wrong.push(format!("our verdict on {text}: {:?}", ours.err()));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    eprintln!("parser verdicts: {} schemas, all as flatc", VERDICTS.len());
    let _ = std::fs::remove_dir_all(&dir);
    let _ = Path::new("");
}
