"""Which rules of different engines are one rule (D20), and which engine leads.

Oxlint and Biome re-implement ESLint rules (and rules of common ESLint
plugins). A rule's *key* is `family/rule` in ESLint's naming, with core
ESLint rules and their typescript-eslint extensions in one family `js`
(`no-unused-vars` and `@typescript-eslint/no-unused-vars` report the same
problem). Rules without a known ESLint equivalent have no key and are never
merged with another engine's.

Biome's table lists the Biome rules whose source declares the ESLint rule as
the *same* logic (`RuleSource::Eslint*(..).same()`; rules only "inspired" by
an ESLint rule are left out), extracted from Biome's rule declarations
(biomejs/biome, crates/biome_js_analyze/src/lint, 2.5.x) and keyed by rule
name, which is unique across Biome's groups.
"""

from __future__ import annotations

import re
from typing import Final

# Primary engine of a merged issue, first wins: ESLint owns the original
# rule (its message, docs and the project's configured severity), Biome's
# rules declare their ESLint source, Oxlint's are ports. Engines not listed
# (tsc) have no rule keys.
PRECEDENCE: Final = ("eslint", "biome", "oxlint")

_JS: Final = "js"
# Plugin names as Oxlint prints them (`react(jsx-key)`) or as ESLint rule
# prefixes (`react/jsx-key`), mapped to one family name.
_FAMILIES: Final = {
    "eslint": _JS,
    "typescript": _JS,
    "@typescript-eslint": _JS,
    "react": "react",
    "react-hooks": "react-hooks",
    "jsx-a11y": "jsx-a11y",
    "import": "import",
    "import-x": "import",
    "jest": "jest",
    "vitest": "vitest",
    "@vitest": "vitest",
    "unicorn": "unicorn",
    "promise": "promise",
    "node": "node",
    "n": "node",
    "vue": "vue",
    "jsdoc": "jsdoc",
    "next": "next",
    "@next/next": "next",
}
_OXLINT_CODE: Final = re.compile(r"^([\w-]+)\(([\w-]+)\)$")

_BIOME_SAME: Final = """
noAccessKey jsx-a11y/no-access-key
noAdjacentSpacesInRegex js/no-regex-spaces
noAlert js/no-alert
noAmbiguousAnchorText jsx-a11y/anchor-ambiguous-text
noArguments js/prefer-rest-params
noAriaHiddenOnFocusable jsx-a11y/no-aria-hidden-on-focusable
noAriaUnsupportedElements jsx-a11y/aria-unsupported-elements
noArrayIndexKey react/no-array-index-key
noAsyncPromiseExecutor js/no-async-promise-executor
noAutofocus jsx-a11y/no-autofocus
noAwaitInLoops js/no-await-in-loop
noBannedTypes js/ban-types
noBaseToString js/no-base-to-string
noBeforeInteractiveScriptOutsideDocument next/no-before-interactive-script-outside-document
noBitwiseOperators js/no-bitwise
noCatchAssign js/no-ex-assign
noChildrenProp react/no-children-prop
noClassAssign js/no-class-assign
noCommaOperator js/no-sequences
noCommentText react/jsx-no-comment-textnodes
noCommonJs import/no-commonjs js/no-require-imports js/no-var-requires
noCompareNegZero js/no-compare-neg-zero
noComponentHookFactories react-hooks/component-hook-factories
noConditionalExpect jest/no-conditional-expect vitest/no-conditional-expect
noConfusingVoidType js/no-invalid-void-type
noConsole js/no-console
noConstAssign js/no-const-assign
noConstantBinaryExpressions js/no-constant-binary-expression
noConstantCondition js/no-constant-condition
noConstructorReturn js/no-constructor-return
noContinue js/no-continue
noControlCharactersInRegex js/no-control-regex
noDangerouslySetInnerHtml react/no-danger
noDangerouslySetInnerHtmlWithChildren react/no-danger-with-children
noDebugger js/no-debugger
noDefaultExport import/no-default-export
noDistractingElements jsx-a11y/no-distracting-elements
noDivRegex js/no-div-regex
noDocumentImportInPage next/no-document-import-in-page
noDoneCallback jest/no-done-callback vitest/no-done-callback
noDoubleEquals js/eqeqeq
noDuplicateCase js/no-duplicate-case
noDuplicateClassMembers js/no-dupe-class-members
noDuplicateElseIf js/no-dupe-else-if
noDuplicateEnumValues js/no-duplicate-enum-values
noDuplicateJsxProps react/jsx-no-duplicate-props
noDuplicateObjectKeys js/no-dupe-keys
noDuplicateParameters js/no-dupe-args
noDuplicatedSpreadProps react/jsx-props-no-spread-multi
noEmptyBlockStatements js/no-empty js/no-empty-function js/no-empty-static-block
noEmptyCharacterClassInRegex js/no-empty-character-class
noEmptyPattern js/no-empty-pattern
noEmptySource unicorn/no-empty-file
noEqualsToNull js/no-eq-null
noExcessiveClassesPerFile js/max-classes-per-file
noExcessiveNestedCallbacks js/max-nested-callbacks
noExcessiveNestedTestSuites jest/max-nested-describe vitest/max-nested-describe
noExplicitAny js/no-explicit-any
noExtendNative js/no-extend-native
noExtraBooleanCast js/no-extra-boolean-cast
noExtraNonNullAssertion js/no-extra-non-null-assertion
noFallthroughSwitchClause js/no-fallthrough
noFloatingPromises js/no-floating-promises
noForEach unicorn/no-array-for-each
noFunctionAssign js/no-func-assign
noGlobalAssign js/no-global-assign
noGlobalEval js/no-eval
noGlobalObjectCalls js/no-obj-calls
noHeadElement next/no-head-element
noHeadImportInDocument next/no-head-import-in-document
noHeaderScope jsx-a11y/scope
noIdenticalTestTitle jest/no-identical-title vitest/no-identical-title
noImgElement next/no-img-element
noImplicitCoercions js/no-implicit-coercion
noImpliedEval js/no-implied-eval
noImportAssign js/no-import-assign
noImportCycles import/no-cycle
noIncrementDecrement js/no-plusplus
noInferrableTypes js/no-inferrable-types
noInnerDeclarations js/no-inner-declarations
noInteractiveElementToNoninteractiveRole jsx-a11y/no-interactive-element-to-noninteractive-role
noInvalidBuiltinInstantiation js/no-new-native-nonconstructor unicorn/new-for-builtins
noInvalidConstructorSuper js/constructor-super
noInvalidUseBeforeDeclaration js/no-use-before-define
noIrregularWhitespace js/no-irregular-whitespace
noJsRestrictedProperties js/no-restricted-properties
noJsxLiterals react/jsx-no-literals
noLabelVar js/no-label-var
noLabelWithoutControl jsx-a11y/label-has-associated-control
noLoopFunc js/no-loop-func
noMagicNumbers js/no-magic-numbers
noMisleadingCharacterClass js/no-misleading-character-class
noMisleadingInstantiator js/no-misused-new
noMisusedPromises js/no-misused-promises
noMultilineString js/no-multi-str
noNamespace js/no-namespace
noNegationElse js/no-negated-condition
noNegationInEqualityCheck unicorn/no-negation-in-equality-check
noNestedPromises promise/no-nesting
noNestedTernary js/no-nested-ternary
noNextAsyncClientComponent next/no-async-client-component
noNodejsModules import/no-nodejs-modules
noNonNullAssertedOptionalChain js/no-non-null-asserted-optional-chain
noNonNullAssertion js/no-non-null-assertion
noNoninteractiveElementInteractions jsx-a11y/no-noninteractive-element-interactions
noNoninteractiveElementToInteractiveRole jsx-a11y/no-noninteractive-element-to-interactive-role
noNoninteractiveTabindex jsx-a11y/no-noninteractive-tabindex
noNonoctalDecimalEscape js/no-nonoctal-decimal-escape
noOctalEscape js/no-octal-escape
noParameterAssign js/no-param-reassign
noPositiveTabindex jsx-a11y/tabindex-no-positive
noPrecisionLoss js/no-loss-of-precision
noProcessEnv node/no-process-env
noProto js/no-proto
noPrototypeBuiltins js/no-prototype-builtins js/prefer-object-has-own
noReactPropAssignments react-hooks/react-compiler
noReactStringRefs react/no-string-refs
noRedeclare js/no-redeclare
noRedundantAlt jsx-a11y/img-redundant-alt
noRedundantRoles jsx-a11y/no-redundant-roles
noRestrictedElements react/forbid-elements
noRestrictedGlobals js/no-restricted-globals
noRestrictedImports js/no-restricted-imports
noRestrictedTypes js/no-restricted-types
noReturnAssign js/no-return-assign
noScriptUrl js/no-script-url react/jsx-no-script-url
noSelfAssign js/no-self-assign
noSelfCompare js/no-self-compare
noSetterReturn js/no-setter-return
noShadow js/no-shadow
noShadowRestrictedNames js/no-shadow-restricted-names
noSparseArray js/no-sparse-arrays
noStaticElementInteractions jsx-a11y/no-static-element-interactions
noStaticOnlyClass js/no-extraneous-class unicorn/no-static-only-class
noSubstr unicorn/prefer-string-slice
noSwitchDeclarations js/no-case-declarations
noSyncScripts next/no-sync-scripts
noTemplateCurlyInString js/no-template-curly-in-string
noTernary js/no-ternary
noThenProperty unicorn/no-thenable
noUnassignedVariables js/no-unassigned-vars
noUndeclaredDependencies import/no-extraneous-dependencies
noUndeclaredVariables js/no-undef
noUnknownAttribute react/no-unknown-property
noUnreachable js/no-unreachable
noUnreachableSuper js/no-this-before-super
noUnsafeDeclarationMerging js/no-unsafe-declaration-merging
noUnsafeFinally js/no-unsafe-finally
noUnsafeNegation js/no-unsafe-negation
noUnsafeOptionalChaining js/no-unsafe-optional-chaining
noUnsafePlusOperands js/restrict-plus-operands
noUnusedExpressions js/no-unused-expressions
noUnusedInstantiation js/no-new
noUnusedLabels js/no-unused-labels
noUnusedPrivateClassMembers js/no-unused-private-class-members
noUnusedVariables js/no-unused-vars
noUnwantedPolyfillio next/no-unwanted-polyfillio
noUselessCatch js/no-useless-catch
noUselessConstructor js/no-useless-constructor
noUselessEmptyExport js/no-useless-empty-export
noUselessEscapeInRegex js/no-useless-escape
noUselessFragments react/jsx-no-useless-fragment
noUselessLabel js/no-extra-label
noUselessLoneBlockStatements js/no-lone-blocks
noUselessRegexBackrefs js/no-useless-backreference
noUselessRename js/no-useless-rename
noUselessStringConcat js/no-useless-concat
noUselessSwitchCase unicorn/no-useless-switch-case
noUselessTernary js/no-unneeded-ternary
noUselessTypeConstraint js/no-unnecessary-type-constraint
noUselessTypeConversion js/no-unnecessary-type-conversion
noUselessUndefined unicorn/no-useless-undefined
noUselessUndefinedInitialization js/no-undef-init
noVar js/no-var
noVoid js/no-void
noVoidElementsWithChildren react/void-dom-elements-no-children
noVueArrowFuncInWatch vue/no-arrow-functions-in-watch
noVueDuplicateKeys vue/no-dupe-keys
noVueImportCompilerMacros vue/no-import-compiler-macros
noVueRefAsOperand vue/no-ref-as-operand
noVueReservedKeys vue/no-reserved-keys
noVueReservedProps vue/no-reserved-props
noWith js/no-with
noYodaExpression js/yoda
useAdjacentOverloadSignatures js/adjacent-overload-signatures
useAltText jsx-a11y/alt-text
useAnchorContent jsx-a11y/anchor-has-content
useAriaActivedescendantWithTabindex jsx-a11y/aria-activedescendant-has-tabindex
useAriaPropsForRole jsx-a11y/role-has-required-aria-props
useAriaPropsSupportedByRole jsx-a11y/role-supports-aria-props
useArrayFind js/prefer-find
useArrayLiterals js/no-array-constructor
useArraySortCompare js/require-array-sort-compare
useAsConstAssertion js/prefer-as-const
useAwait js/require-await
useBlockStatements js/curly
useButtonType react/button-has-type
useCollapsedElseIf js/no-lonely-if
useCollapsedIf unicorn/no-lonely-if
useConsistentArrayType js/array-type
useConsistentArrowReturn js/arrow-body-style
useConsistentBuiltinInstantiation js/no-new-native-nonconstructor js/no-new-wrappers
useConsistentEnumValueType js/no-mixed-enums
useConsistentMemberAccessibility js/explicit-member-accessibility
useConsistentMethodSignatures js/method-signature-style
useConsistentTypeDefinitions js/consistent-type-definitions
useConst js/prefer-const
useDateNow unicorn/prefer-date-now
useDefaultParameterLast js/default-param-last
useDefaultSwitchClause js/default-case
useDefaultSwitchClauseLast js/default-case-last
useDomNodeTextContent unicorn/prefer-dom-node-text-content
useEnumInitializers js/prefer-enum-initializers
useErrorCause js/preserve-caught-error
useErrorMessage unicorn/error-message
useExhaustiveDependencies react-hooks/exhaustive-deps
useExhaustiveSwitchCases js/switch-exhaustiveness-check
useExpect jest/expect-expect vitest/expect-expect
useExplicitLengthCheck unicorn/explicit-length-check
useExponentiationOperator js/prefer-exponentiation-operator
useExportsLast import/exports-last
useFlatMap unicorn/prefer-array-flat-map
useFocusableInteractive jsx-a11y/interactive-supports-focus
useForOf js/prefer-for-of unicorn/no-for-loop
useFragmentSyntax react/jsx-fragments
useGetterReturn js/getter-return
useGlobalThis unicorn/prefer-global-this
useGoogleFontDisplay next/google-font-display
useGoogleFontPreconnect next/google-font-preconnect
useGroupedAccessorPairs js/grouped-accessor-pairs
useGuardForIn js/guard-for-in
useHeadingContent jsx-a11y/heading-has-content
useHookAtTopLevel react-hooks/rules-of-hooks
useHtmlLang jsx-a11y/html-has-lang
useIframeTitle jsx-a11y/iframe-has-title
useImportsFirst import/first
useIndexOf unicorn/prefer-array-index-of
useInlineScriptId next/inline-script-id
useIsArray unicorn/no-instanceof-array
useIsNan js/use-isnan
useIterableCallbackReturn js/array-callback-return
useJsxKeyInIterable react/jsx-key
useKeyWithClickEvents jsx-a11y/click-events-have-key-events
useKeyWithMouseEvents jsx-a11y/mouse-events-have-key-events
useLiteralEnumMembers js/prefer-literal-enum-member
useLiteralKeys js/dot-notation js/no-useless-computed-key
useMathMinMax unicorn/prefer-math-min-max
useMaxParams js/max-params
useMediaCaption jsx-a11y/media-has-caption
useNamedCaptureGroup js/prefer-named-capture-group
useNamespaceKeyword js/prefer-namespace-keyword
useNodejsImportProtocol import/enforce-node-protocol-usage unicorn/prefer-node-protocol
useNumberNamespace unicorn/prefer-number-properties
useNumberToFixedDigitsArgument unicorn/require-number-to-fixed-digits-argument
useNumericLiterals js/prefer-numeric-literals
useNumericSeparators unicorn/numeric-separators-style
useObjectSpread js/prefer-object-spread
useOptionalChain js/prefer-optional-chain
useParseIntRadix js/radix
useReactAsyncServerFunction react/async-server-action
useReadonlyClassProperties js/prefer-readonly
useRegexLiterals js/prefer-regex-literals
useRegexpExec js/prefer-regexp-exec
useRegexpTest unicorn/prefer-regexp-test
useSemanticElements jsx-a11y/prefer-tag-over-role
useShorthandAssign js/operator-assignment
useShorthandFunctionType js/prefer-function-type
useSingleVarDeclarator js/one-var
useSpreadOverApply js/prefer-spread
useSymbolDescription js/symbol-description
useTemplate js/prefer-template
useTestHooksInOrder jest/prefer-hooks-in-order vitest/prefer-hooks-in-order
useTestHooksOnTop jest/prefer-hooks-on-top vitest/prefer-hooks-on-top
useThisInClassMethods js/class-methods-use-this
useThrowNewError unicorn/throw-new-error
useTrimStartEnd unicorn/prefer-string-trim-start-end
useUnicodeRegex js/require-unicode-regexp
useUnifiedTypeSignatures js/unified-signatures
useValidAnchor jsx-a11y/anchor-is-valid
useValidAriaProps jsx-a11y/aria-props
useValidAriaRole jsx-a11y/aria-role
useValidAriaValues jsx-a11y/aria-proptypes
useValidAutocomplete jsx-a11y/autocomplete-valid
useValidForDirection js/for-direction
useValidLang jsx-a11y/lang
useValidTypeof js/valid-typeof
useVarsOnTop js/vars-on-top
useVueConsistentDefinePropsDeclaration vue/define-props-declaration
useVueDefineMacrosOrder vue/define-macros-order
useYield js/require-yield
"""


def _biome_table() -> dict[str, tuple[str, ...]]:
    table: dict[str, tuple[str, ...]] = {}
    for line in _BIOME_SAME.strip().splitlines():
        name, *keys = line.split()
        table[name] = tuple(keys)
    return table


_BIOME: Final = _biome_table()


def _eslint_keys(rule: str) -> tuple[str, ...]:
    if "/" not in rule:
        return (f"{_JS}/{rule}",)
    prefix, _, name = rule.rpartition("/")
    family = _FAMILIES.get(prefix)
    return (f"{family}/{name}",) if family else ()


def rule_keys(engine: str, rule: str) -> tuple[str, ...]:
    """The ESLint-named keys of `engine`'s `rule`; () when it has none."""
    if engine == "eslint":
        return _eslint_keys(rule)
    if engine == "oxlint":
        match = _OXLINT_CODE.match(rule)
        family = _FAMILIES.get(match.group(1)) if match else None
        return (f"{family}/{match.group(2)}",) if match and family else ()
    if engine == "biome" and rule.startswith("lint/"):
        return _BIOME.get(rule.rpartition("/")[2], ())
    return ()


def rank(engine: str) -> int:
    """Sort key: lower leads (see PRECEDENCE)."""
    return PRECEDENCE.index(engine) if engine in PRECEDENCE else len(PRECEDENCE)
