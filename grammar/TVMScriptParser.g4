// Parser for the TVMScript text format: the subset of Python's grammar that
// TVMScript uses (decorated classes and defs, assignments, for/while/with/if,
// return/assert/pass, Python expression precedence).
//
// Expressions use one left-recursive rule so ANTLR builds a flat tree (one node
// per operator) rather than Python's fifteen-level rule cascade; that is what
// keeps parsing large lowered modules fast. Statement-level rules are LL(1)
// after a leading expression list, so SLL prediction nearly always succeeds.
parser grammar TVMScriptParser;

options { tokenVocab = TVMScriptLexer; }

// Entry points. A file is parsed one top-level definition (or one member of a
// module class) at a time, so that only one definition's tokens and tree are
// in memory at once: `single_stmt` for a definition, `class_header` for the
// `@I.ir_module class Name:` line that opens a module class.
single_stmt : stmt EOF;

class_header : decorator* CLASS NAME ( LPAREN arglist? RPAREN )? COLON NEWLINE INDENT EOF;

// An expression written inside a string, such as a Relax dimension "n * 2 + 1".
single_expr : expr EOF;

stmt : simple_stmt | compound_stmt;

simple_stmt : small_stmt ( SEMI small_stmt )* SEMI? NEWLINE;

small_stmt
  : expr_stmt
  | RETURN testlist?                      // return_stmt
  | PASS
  | BREAK
  | CONTINUE
  | ASSERT expr ( COMMA expr )?
  | import_stmt
  ;

// `import tvm`, `from tvm.script import tir as T`: accepted at the top level and ignored.
import_stmt
  : IMPORT dotted_as_name ( COMMA dotted_as_name )*
  | FROM dotted_name IMPORT ( STAR | import_as_names | LPAREN import_as_names RPAREN )
  ;

import_as_names : NAME ( AS NAME )? ( COMMA NAME ( AS NAME )? )* COMMA?;

dotted_as_name : dotted_name ( AS NAME )?;

dotted_name : NAME ( DOT NAME )*;

// `x = e`, `x: T = e`, `x: T`, `B[i] += e` or a bare expression.
expr_stmt : testlist ( annassign | augassign testlist | ASSIGN testlist )?;

annassign : COLON expr ( ASSIGN testlist )?;

augassign
  : ADD_ASSIGN | SUB_ASSIGN | MUL_ASSIGN | DIV_ASSIGN | FLOORDIV_ASSIGN | MOD_ASSIGN;

compound_stmt
  : if_stmt
  | for_stmt
  | while_stmt
  | with_stmt
  | funcdef
  | classdef
  | decorated
  ;

decorated : decorator+ ( classdef | funcdef );

decorator : AT expr NEWLINE;

funcdef : DEF NAME LPAREN parameters? RPAREN ( ARROW expr )? COLON suite;

parameters : parameter ( COMMA parameter )* COMMA?;

parameter : NAME ( COLON expr )? ( ASSIGN expr )?;

classdef : CLASS NAME ( LPAREN arglist? RPAREN )? COLON suite;

if_stmt : IF expr COLON suite elif_clause* else_clause?;

elif_clause : ELIF expr COLON suite;

else_clause : ELSE COLON suite;

for_stmt : FOR targetlist IN testlist COLON suite;

while_stmt : WHILE expr COLON suite;

with_stmt : WITH with_item ( COMMA with_item )* COLON suite;

with_item : expr ( AS target )?;

suite : simple_stmt | NEWLINE INDENT stmt+ DEDENT;

// Binding targets of `for` and `with ... as`: names, possibly in tuples/lists.
// A separate rule because a general expression would swallow the `in`.
targetlist : target ( COMMA target )* COMMA?;

target
  : NAME
  | LPAREN targetlist? RPAREN
  | LBRACK targetlist? RBRACK
  ;

testlist : expr ( COMMA expr )* COMMA?;

// Alternatives are listed from the tightest binding to the loosest, as in
// Python's operator precedence table.
expr
  : atom                                                  # atomExpr
  | expr DOT NAME                                         # attributeExpr
  | expr LPAREN arglist? RPAREN                           # callExpr
  | expr LBRACK subscriptlist RBRACK                      # subscriptExpr
  | <assoc=right> expr POWER expr                         # powerExpr
  | op=( PLUS | MINUS | TILDE ) expr                      # unaryExpr
  | expr op=( STAR | SLASH | FLOORDIV | PERCENT | AT ) expr   # mulExpr
  | expr op=( PLUS | MINUS ) expr                         # addExpr
  | expr op=( LSHIFT | RSHIFT ) expr                      # shiftExpr
  | expr AMP expr                                         # bitAndExpr
  | expr CARET expr                                       # bitXorExpr
  | expr PIPE expr                                        # bitOrExpr
  | expr comp_op expr                                     # compareExpr
  | NOT expr                                              # notExpr
  | expr AND expr                                         # andExpr
  | expr OR expr                                          # orExpr
  | <assoc=right> expr IF expr ELSE expr                  # conditionalExpr
  | LAMBDA lambda_params? COLON expr                      # lambdaExpr
  | STAR expr                                             # starredExpr
  ;

comp_op : LT | GT | EQ | GE | LE | NE | IN | NOT IN | IS | IS NOT;

lambda_params : lambda_param ( COMMA lambda_param )* COMMA?;

// `*indices`: the variadic parameter of an index map (TVM's IndexMap.from_func), which its
// results unpack as `[*indices, k // 4]` (a starredExpr).
lambda_param : STAR? NAME;

atom
  : LPAREN ( expr ( COMMA expr )* COMMA? )? RPAREN       # parenAtom
  | LBRACK ( expr ( COMMA expr )* COMMA? )? RBRACK       # listAtom
  | LBRACE ( dict_entry ( COMMA dict_entry )* COMMA? )? RBRACE   # dictAtom
  | NAME                                                 # nameAtom
  | INTEGER                                              # intAtom
  | FLOAT_NUMBER                                         # floatAtom
  | STRING+                                              # stringAtom
  | NONE                                                 # noneAtom
  | TRUE                                                 # trueAtom
  | FALSE                                                # falseAtom
  ;

dict_entry : expr COLON expr;

subscriptlist : subscript ( COMMA subscript )* COMMA?;

// `i`, `i:i+16`, `:`, `::2`; shaped so one token of lookahead decides.
subscript : expr slice_tail? | slice_tail;

slice_tail : COLON expr? ( COLON expr? )?;

arglist : argument ( COMMA argument )* COMMA?;

argument
  : NAME ASSIGN expr                                     # keywordArgument
  | expr                                                 # positionalArgument
  ;
