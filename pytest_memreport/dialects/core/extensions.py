"""File extensions a cited path may end with: what tells ``index.ts`` or
``README.md`` (a file) from ``JSON.stringify`` or ``thoughtHistory.length`` (a
member of an object) when a report writes a name without backticks or lines.

A fixed list kept in the package, so reading a report does not depend on what
else is installed or on the machine's MIME tables. Extensions that are also
common member names (``.path``, ``.load``, ``.service``, ``.target``) are left
out on purpose: a backticked ``foo.service`` is still read as a path, only a
plain word is not.
"""

from __future__ import annotations

_SOURCE = """
    c h cc cpp cxx c++ hh hpp hxx h++ ipp tpp inl ixx cppm cu cuh m mm
    cs csx fs fsi fsx fsscript vb
    java kt kts scala sc groovy gradle clj cljs cljc edn
    go rs zig nim d v odin
    py pyi pyw pyx pxd pxi ipynb
    rb rake gemspec ru erb
    php phtml
    js mjs cjs jsx ts mts cts tsx vue svelte astro
    swift
    dart
    lua luau
    pl pm t raku rakumod
    r rmd jl
    ex exs eex heex leex erl hrl
    hs lhs cabal ml mli mly mll re rei elm purs
    lisp lsp el scm ss rkt fnl
    sh bash zsh fish ksh csh tcsh ps1 psm1 psd1 bat cmd
    awk sed tcl
    f f90 f95 f03 f08
    ada adb ads pas pp dpr
    asm s nasm
    sol vy
    wasm wat wast
    proto thrift capnp avsc fbs graphql gql prisma
    sql psql cql
    glsl hlsl wgsl vert frag
    tf tfvars hcl nix dhall jsonnet libsonnet bzl
    cmake mk mak ninja gyp gypi
    coffee ls elm
    hx cr jinja j2 tmpl tpl mustache hbs handlebars ejs pug jade haml slim liquid twig njk
    """

_MARKUP_AND_DATA = """
    md markdown mdx rst adoc asciidoc txt org tex latex bib texi rtf
    html htm xhtml xml xsd xsl xslt svg css scss sass less styl pcss
    json json5 jsonc jsonl ndjson geojson yaml yml toml ini cfg conf cnf properties
    csv tsv psv parquet avro feather orc
    mod diff patch
    plist webmanifest desktop
    editorconfig gitignore gitattributes gitmodules dockerignore npmignore prettierrc eslintrc babelrc
    nvmrc npmrc yarnrc
    pem crt cer csr p12 pfx jks
    """

_BINARY = """
    png jpg jpeg gif webp avif bmp ico icns tif tiff heic psd ai eps pdf
    mp3 mp4 m4a wav ogg oga ogv opus flac aac webm mov avi mkv
    ttf otf woff woff2 eot
    zip gz tgz tar bz2 xz zst 7z rar jar whl deb rpm apk dmg
    exe dll so dylib a o obj bin dat sqlite sqlite3 pkl pickle npy npz h5 hdf5 onnx pth safetensors
    pyc pyo wasm
    doc docx xls xlsx ppt pptx odt ods odp
    """

#: every extension above, lower-case, without its dot
KNOWN_EXTENSIONS: frozenset[str] = frozenset(
    word for block in (_SOURCE, _MARKUP_AND_DATA, _BINARY) for word in block.split()
)

#: the extensions of source files alone: what a file named in plain words ends with
#: (``In the VoltageManager.sol contract:``; ``README.md`` in prose is a document's name)
SOURCE_EXTENSIONS: frozenset[str] = frozenset(_SOURCE.split())
