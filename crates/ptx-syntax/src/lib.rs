//! PTX front end: lexer, parser, typed AST with spans, validation, printer.
