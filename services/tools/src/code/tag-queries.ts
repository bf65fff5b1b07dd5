/**
 * Tree-sitter queries naming each language's definitions: `@name` is the identifier, the
 * `@definition.<kind>` capture the whole definition (its line range and first line).
 * Node names are those of the grammars in tree-sitter-wasms 0.1.13.
 */
const javascriptCommon = `
(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(method_definition name: (_) @name) @definition.method
(export_statement declaration: (lexical_declaration (variable_declarator name: (identifier) @name) @definition.constant))
(program (lexical_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression)]) @definition.function))
`;

const typescript = `${javascriptCommon}
(class_declaration name: (type_identifier) @name) @definition.class
(abstract_class_declaration name: (type_identifier) @name) @definition.class
(abstract_method_signature name: (_) @name) @definition.method
(interface_declaration body: (_ (method_signature name: (_) @name) @definition.method))
(interface_declaration name: (type_identifier) @name) @definition.interface
(type_alias_declaration name: (type_identifier) @name) @definition.type
(enum_declaration name: (identifier) @name) @definition.enum
`;

const c = `
(function_definition declarator: (function_declarator declarator: (identifier) @name)) @definition.function
(function_definition declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))) @definition.function
(struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
(enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
(type_definition declarator: (type_identifier) @name) @definition.type
(preproc_def name: (identifier) @name) @definition.macro
(preproc_function_def name: (identifier) @name) @definition.macro
`;

export const tagQueries: Record<string, string> = {
  typescript,
  tsx: typescript,
  javascript: `${javascriptCommon}
(class_declaration name: (identifier) @name) @definition.class
`,
  python: `
(class_definition name: (identifier) @name) @definition.class
(function_definition name: (identifier) @name) @definition.function
(module (expression_statement (assignment left: (identifier) @name) @definition.constant))
`,
  go: `
(function_declaration name: (identifier) @name) @definition.function
(method_declaration name: (field_identifier) @name) @definition.method
(type_spec name: (type_identifier) @name) @definition.type
(source_file (const_declaration (const_spec name: (identifier) @name) @definition.constant))
`,
  rust: `
(function_item name: (identifier) @name) @definition.function
(function_signature_item name: (identifier) @name) @definition.method
(struct_item name: (type_identifier) @name) @definition.struct
(enum_item name: (type_identifier) @name) @definition.enum
(trait_item name: (type_identifier) @name) @definition.trait
(type_item name: (type_identifier) @name) @definition.type
(const_item name: (identifier) @name) @definition.constant
(static_item name: (identifier) @name) @definition.constant
(mod_item name: (identifier) @name) @definition.module
(macro_definition name: (identifier) @name) @definition.macro
`,
  java: `
(class_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.constructor
`,
  c,
  cpp: `${c}
(class_specifier name: (type_identifier) @name body: (_)) @definition.class
(function_definition declarator: (function_declarator declarator: (qualified_identifier name: (identifier) @name))) @definition.method
(function_definition declarator: (function_declarator declarator: (field_identifier) @name)) @definition.method
(namespace_definition name: (_) @name) @definition.namespace
`,
  json: `
(document (object (pair key: (string) @name) @definition.key))
`,
  yaml: `
(stream (document (block_node (block_mapping (block_mapping_pair key: (_) @name) @definition.key))))
`,
};

/** Leaf node types that name something: what a file references (for the map's ranking). */
export const referenceNodeTypes: Record<string, readonly string[]> = {
  typescript: ["identifier", "type_identifier", "property_identifier", "shorthand_property_identifier"],
  tsx: ["identifier", "type_identifier", "property_identifier", "shorthand_property_identifier"],
  javascript: ["identifier", "property_identifier", "shorthand_property_identifier"],
  python: ["identifier"],
  go: ["identifier", "type_identifier", "field_identifier"],
  rust: ["identifier", "type_identifier", "field_identifier"],
  java: ["identifier", "type_identifier"],
  c: ["identifier", "type_identifier", "field_identifier"],
  cpp: ["identifier", "type_identifier", "field_identifier", "namespace_identifier"],
  json: [],
  yaml: [],
};
