// Lexer for the TVMScript text format: Python's token set, as TVM prints it.
//
// Indentation is not handled here. NEWLINE carries the line break together with
// the indentation of the next line; frontend/lib/IndentingLexer.cpp turns those
// into INDENT/DEDENT tokens, drops line breaks inside brackets (implicit line
// joining) and blank lines. Keeping that logic out of the grammar keeps the
// grammar target-neutral and the logic unit-testable.
lexer grammar TVMScriptLexer;

tokens { INDENT, DEDENT }

// Keywords come first so that they win over NAME.
DEF      : 'def';
CLASS    : 'class';
RETURN   : 'return';
FOR      : 'for';
WHILE    : 'while';
IN       : 'in';
IF       : 'if';
ELIF     : 'elif';
ELSE     : 'else';
WITH     : 'with';
AS       : 'as';
IMPORT   : 'import';
FROM     : 'from';
AND      : 'and';
OR       : 'or';
NOT      : 'not';
IS       : 'is';
PASS     : 'pass';
BREAK    : 'break';
CONTINUE : 'continue';
ASSERT   : 'assert';
LAMBDA   : 'lambda';
NONE     : 'None';
TRUE     : 'True';
FALSE    : 'False';

NAME : [a-zA-Z_] [a-zA-Z0-9_]*;

// Floats before integers: "1.5" must not lex as "1" ".5".
FLOAT_NUMBER
  : DIGITS '.' DIGITS? EXPONENT?
  | '.' DIGITS EXPONENT?
  | DIGITS EXPONENT
  ;
INTEGER
  : [1-9] ('_'? [0-9])*
  | '0'+ ('_'? '0')*
  | '0' [xX] ('_'? [0-9a-fA-F])+
  | '0' [oO] ('_'? [0-7])+
  | '0' [bB] ('_'? [01])+
  ;

STRING
  : STRING_PREFIX? ( '\'\'\'' LONG_STRING_ITEM*? '\'\'\''
                   | '"""' LONG_STRING_ITEM*? '"""'
                   | '\'' ( ESCAPE | ~[\\\r\n'] )* '\''
                   | '"' ( ESCAPE | ~[\\\r\n"] )* '"' )
  ;

// A string that runs into the end of its line: reported as an error by the
// frontend instead of an ANTLR "token recognition error".
UNTERMINATED_STRING
  : STRING_PREFIX? ( '\'' ( ESCAPE | ~[\\\r\n'] )* | '"' ( ESCAPE | ~[\\\r\n"] )* )
  ;

NEWLINE : ( '\r'? '\n' | '\r' | '\f' ) [ \t\f]*;

LPAREN   : '(';
RPAREN   : ')';
LBRACK   : '[';
RBRACK   : ']';
LBRACE   : '{';
RBRACE   : '}';
DOT      : '.';
COMMA    : ',';
COLON    : ':';
SEMI     : ';';
AT       : '@';
ARROW    : '->';
ASSIGN   : '=';
ADD_ASSIGN      : '+=';
SUB_ASSIGN      : '-=';
MUL_ASSIGN      : '*=';
DIV_ASSIGN      : '/=';
FLOORDIV_ASSIGN : '//=';
MOD_ASSIGN      : '%=';
POWER    : '**';
STAR     : '*';
SLASH    : '/';
FLOORDIV : '//';
PERCENT  : '%';
PLUS     : '+';
MINUS    : '-';
TILDE    : '~';
LSHIFT   : '<<';
RSHIFT   : '>>';
AMP      : '&';
PIPE     : '|';
CARET    : '^';
LT       : '<';
GT       : '>';
LE       : '<=';
GE       : '>=';
EQ       : '==';
NE       : '!=';

COMMENT : '#' ~[\r\n\f]* -> skip;
// A backslash at the end of a line joins it with the next one.
LINE_JOIN : '\\' [ \t]* ( '\r'? '\n' | '\r' | '\f' ) -> skip;
SPACES : [ \t]+ -> skip;

// Anything else becomes a token of its own so the parser reports it with a
// location instead of the lexer silently dropping it.
UNKNOWN_CHAR : .;

fragment DIGITS : [0-9] ('_'? [0-9])*;
fragment EXPONENT : [eE] [+-]? DIGITS;
fragment STRING_PREFIX : [rRbBuU] | [rR][bB] | [bB][rR];
fragment ESCAPE : '\\' ( '\r\n' | . );
fragment LONG_STRING_ITEM : ESCAPE | ~'\\';
