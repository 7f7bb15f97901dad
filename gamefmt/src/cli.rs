//! The command line: subcommands, options and their help texts.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use clap_complete::Shell;

/// Decode, encode, inspect and diff game data files: Resonite data trees (brson), KingsIsle
/// ObjectProperty blobs (kiprop), Godot Variants (godot), O3DE JSON (o3de: prefabs, settings
/// registry files, materials) and FlatBuffers (flatbuf, with a .fbs schema).
#[derive(Parser, Debug)]
#[command(name = "gamefmt", version, about, max_term_width = 100)]
#[command(after_help = "\
Exit status: 0 success, 1 if any file failed (each failure is one line on stderr), 2 for usage \
errors (including a missing --types, --schema or --format). `diff` exits 1 when the files differ.

Examples:
  gamefmt decode World.brson > world.json
  gamefmt encode world.json -o World.brson
  gamefmt inspect --hex Box.7zbson
  gamefmt diff old.brson new.brson --ignore-ids
  gamefmt decode --schema monster.fbs monster.bin
  gamefmt brson urls Box.7zbson")]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

/// The formats.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Format {
    /// Resonite / NeosVR data trees (.brson, .7zbson, .lz4bson; FrDT header).
    Brson,
    /// KingsIsle ObjectProperty (Wizard101, Pirate101); needs --types.
    Kiprop,
    /// Godot Variant bytes (var_to_bytes, store_var, put_var); never detected, give --format godot.
    Godot,
    /// O3DE prefabs (JSON), loaded with O3DE's lenient rules.
    O3de,
    /// FlatBuffers through a .fbs schema; needs --schema (JSON as flatc --json --strict-json prints it).
    Flatbuf,
}

impl Format {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Format::Brson => "brson",
            Format::Kiprop => "kiprop",
            Format::Godot => "godot",
            Format::O3de => "o3de",
            Format::Flatbuf => "flatbuf",
        }
    }
}

/// BRSON compression kinds.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CompressionArg {
    /// lz4net chunks (.lz4bson).
    Lz4,
    /// Resonite LZMA (.7zbson).
    Lzma,
    /// Brotli (.brson).
    Brotli,
}

/// Godot framings.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FramingArg {
    /// StreamPeer.put_var / FileAccess.store_var: each Variant after a u32 little-endian length.
    Stream,
    /// The same with big_endian = true (u32 big-endian lengths).
    StreamBe,
    /// PacketPeerStream: u32 little-endian lengths.
    Packet,
    /// var_to_bytes: exactly one Variant, no length.
    None,
}

/// Options shared by decode, encode, inspect and diff.
#[derive(Args, Debug, Clone, Default)]
pub(crate) struct FormatArgs {
    /// The format (detected from the bytes or the extension when not given; godot always needs it).
    #[arg(long, short = 'f', value_enum)]
    pub(crate) format: Option<Format>,
    /// kiprop: the type list (katsuba/wizwalker JSON dump). Required for kiprop.
    #[arg(long, value_name = "FILE")]
    pub(crate) types: Vec<PathBuf>,
    /// kiprop: SerializerFlags of data without a BINd header (a BINd file stores its own).
    #[arg(long, value_name = "N", value_parser = parse_u32)]
    pub(crate) flags: Option<u32>,
    /// kiprop: deep mode for data without a BINd header (default shallow).
    #[arg(long)]
    pub(crate) deep: bool,
    /// kiprop: the property mask of shallow data (default 0x18).
    #[arg(long, value_name = "N", value_parser = parse_u32)]
    pub(crate) mask: Option<u32>,
    /// kiprop: the whole blob is a u32 size and a zlib stream.
    #[arg(long)]
    pub(crate) manual_compression: bool,
    /// godot: the engine generation.
    #[arg(long, value_name = "3|4", value_parser = clap::value_parser!(u8).range(3..=4))]
    pub(crate) godot: Option<u8>,
    /// godot: how the Variants are framed (default none: one var_to_bytes value).
    #[arg(long, value_enum)]
    pub(crate) framing: Option<FramingArg>,
    /// flatbuf: the .fbs schema (its includes are found next to it or in -I directories). Required for flatbuf.
    #[arg(long, value_name = "FILE.fbs")]
    pub(crate) schema: Option<PathBuf>,
    /// flatbuf: the root table (default: the schema's root_type), like flatc's --root-type.
    #[arg(long, value_name = "T")]
    pub(crate) root_type: Option<String>,
    /// flatbuf: a directory to look for included schemas in (repeatable), like flatc's -I.
    #[arg(long = "include-dir", short = 'I', value_name = "DIR")]
    pub(crate) include_dirs: Vec<PathBuf>,
    /// flatbuf: the buffers carry a 4-byte size prefix (read it, and write it on encode), like flatc's
    /// --size-prefixed.
    #[arg(long)]
    pub(crate) size_prefixed: bool,
}

fn parse_u32(text: &str) -> Result<u32, String> {
    let parsed = match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => u32::from_str_radix(hex, 16),
        None => text.parse(),
    };
    parsed.map_err(|e| format!("{text:?} is not a 32-bit number: {e}"))
}

/// Output options of decode and encode.
#[derive(Args, Debug, Clone)]
pub(crate) struct OutputArgs {
    /// Where to write: a file for one input (stdout when left out), a directory for several.
    #[arg(long, short = 'o', value_name = "OUT")]
    pub(crate) output: Option<PathBuf>,
    /// Worker threads for several files (default: one per core).
    #[arg(long, short = 'j', value_name = "N")]
    pub(crate) jobs: Option<usize>,
}

#[derive(Subcommand, Debug)]
pub(crate) enum Command {
    /// Decode files to JSON (pretty; --compact for one line).
    #[command(after_help = "\
The JSON keeps what re-encoding needs in `$__`-prefixed keys (brson: $__compression, \
$__header; kiprop: $__bind, $__flags, $__deep, ...; godot: $__godot, $__framing), so `encode` \
needs no options. `-` reads stdin. Several inputs need -o DIR and give DIR/NAME.json each.

Examples:
  gamefmt decode World.brson                      # JSON on stdout
  gamefmt decode --compact Box.7zbson -o box.json
  gamefmt decode records/*.lz4bson -o json/        # one JSON per file, in parallel
  gamefmt decode --types types.json Player.bin     # kiprop (BINd detected)
  gamefmt decode --types types.json --flags 1 --mask 0x18 packet.bin --format kiprop
  gamefmt decode --format godot --framing stream save.dat
  gamefmt decode --format godot --text msg.bin     # Godot's own text form
  gamefmt decode Level.prefab                      # o3de: lenient load, issues on stderr
  gamefmt decode --schema monster.fbs monster.bin  # flatbuf: flatc --json's meaning, exact floats
  gamefmt decode --schema game.fbs --root-type Game.Save -I include/ save.bin
  gamefmt decode Registry/editor.setreg            # o3de settings registry (comments allowed)
  cat World.brson | gamefmt decode --format brson -")]
    Decode {
        #[command(flatten)]
        format: FormatArgs,
        /// One line of JSON instead of indented.
        #[arg(long)]
        compact: bool,
        /// godot: print Godot's text form (`Vector2(1, 2)`) instead of JSON (not re-encodable).
        #[arg(long)]
        text: bool,
        #[command(flatten)]
        output: OutputArgs,
        /// The files (`-` for stdin).
        #[arg(required = true, value_name = "FILE")]
        files: Vec<PathBuf>,
    },
    /// Encode JSON (as `decode` writes it) back to the format's bytes.
    #[command(after_help = "\
The format and its settings come from the JSON's `$__` keys; options given here override them. \
Output goes to -o (a file, or a directory for several inputs, where NAME.json becomes NAME) and \
is written to a temporary file first, then renamed: never a partial file, never over an input. \
Binary output is not written to a terminal.

Examples:
  gamefmt encode world.json -o World.brson
  gamefmt encode world.json --compression lz4 -o World.lz4bson
  gamefmt encode --types types.json player.json -o Player.bin
  gamefmt encode --schema monster.fbs monster.json -o monster.bin   # flatbuf (no $__ keys needed)
  gamefmt encode json/*.json -o out/")]
    Encode {
        #[command(flatten)]
        format: FormatArgs,
        /// brson: the compression (default: the one the JSON records).
        #[arg(long, value_enum)]
        compression: Option<CompressionArg>,
        #[command(flatten)]
        output: OutputArgs,
        /// The JSON files (`-` for stdin).
        #[arg(required = true, value_name = "FILE")]
        files: Vec<PathBuf>,
    },
    /// Show what a file is: format, version, compression, sizes, counts, top-level types.
    #[command(after_help = "\
--hex adds an annotated hex dump, one line per span (offset, bytes, meaning), the same text the \
libraries give for snapshot tests: godot every Variant header, length and value and the text form; \
brson the FrDT header, the compression wrapper, then the decompressed BSON element by element; \
kiprop (bit offsets as byte.bit) the BINd magic, flags, zlib layers, then every object and property \
by name with its value.

Examples:
  gamefmt inspect World.brson
  gamefmt inspect --hex Box.7zbson
  gamefmt inspect --types types.json Player.bin
  gamefmt inspect --format godot --framing stream save.dat
  gamefmt inspect Level.prefab
  gamefmt inspect --schema monster.fbs monster.bin   # root type, identifier, table/vector counts
  gamefmt inspect Registry/editor.setreg          # top-level keys and counts")]
    Inspect {
        #[command(flatten)]
        format: FormatArgs,
        /// Add an annotated hex dump.
        #[arg(long)]
        hex: bool,
        /// The file (`-` for stdin).
        #[arg(value_name = "FILE")]
        file: PathBuf,
    },
    /// Structural diff of two files of one format, by JSON path.
    #[command(after_help = "\
Each difference is one line: `~ PATH: OLD -> NEW`, `- PATH: OLD` or `+ PATH: NEW`, with PATH a \
JSON Pointer into the decoded JSON. Exit status 0 when equal, 1 when they differ, 2 on trouble \
(usage, unreadable or undecodable input), as diff(1).

--ignore-ids (brson) treats Resonite reference IDs (the values of ID, Persistent-ID and \
ParentReference members, and every value that refers to one) that differ only by renumbering as equal: IDs are replaced by their order of first \
appearance before comparing.

Examples:
  gamefmt diff old.brson new.brson
  gamefmt diff --ignore-ids before.7zbson after.brson
  gamefmt diff --types types.json a.bin b.bin
  gamefmt diff --format godot a.bin b.bin
  gamefmt diff --schema monster.fbs a.bin b.bin")]
    Diff {
        #[command(flatten)]
        format: FormatArgs,
        /// Ignore Resonite IDs that differ only by renumbering.
        #[arg(long)]
        ignore_ids: bool,
        /// The old file.
        #[arg(value_name = "A")]
        a: PathBuf,
        /// The new file.
        #[arg(value_name = "B")]
        b: PathBuf,
    },
    /// Resonite data-tree tools.
    #[command(subcommand)]
    Brson(BrsonCommand),
    /// Print a shell completion script.
    #[command(after_help = "\
Examples:
  gamefmt completions bash > /etc/bash_completion.d/gamefmt
  gamefmt completions zsh > \"${fpath[1]}/_gamefmt\"
  gamefmt completions fish > ~/.config/fish/completions/gamefmt.fish")]
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: Shell,
    },
}

#[derive(Subcommand, Debug)]
pub(crate) enum BrsonCommand {
    /// List the asset URLs of a data tree, or rewrite them.
    #[command(after_help = "\
Without --rewrite: one URL per line (without the stored `@`), in document order. With \
--rewrite FROM=TO (repeatable; the first matching prefix wins): every URL starting with FROM \
gets TO instead, and the tree is written to -o with the file's own compression.

Examples:
  gamefmt brson urls Box.7zbson
  gamefmt brson urls World.brson --rewrite resdb:///=https://assets.example/ -o World.selfhosted.brson")]
    Urls {
        /// The data tree (`-` for stdin).
        #[arg(value_name = "FILE")]
        file: PathBuf,
        /// Replace the URL prefix FROM with TO.
        #[arg(long, value_name = "FROM=TO", value_parser = parse_rewrite)]
        rewrite: Vec<(String, String)>,
        /// Where to write the rewritten tree (required with --rewrite).
        #[arg(long, short = 'o', value_name = "OUT")]
        output: Option<PathBuf>,
    },
}

fn parse_rewrite(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((from, to)) if !from.is_empty() => Ok((from.to_owned(), to.to_owned())),
        _ => Err(format!("{text:?} is not FROM=TO with a non-empty FROM")),
    }
}
