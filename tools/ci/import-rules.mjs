// The import rules of the TypeScript sources, as a dependency-cruiser rule set: checked on every
// workspace's sources (tests and dist left out) by tools/ci/check-imports.mjs.
export const forbidden = [
  {
    name: 'no-circular',
    comment: 'An import cycle: modules that cannot be understood, tested or loaded one without the other.',
    severity: 'error',
    from: {},
    to: { circular: true },
  },
  {
    name: 'domain-not-to-adapters',
    comment: 'Dependencies point inward: the domain declares its ports in domain/, adapters implement them.',
    severity: 'error',
    from: { path: '^services/[^/]+/src/domain/' },
    to: { path: '^services/[^/]+/src/adapters/' },
  },
  {
    name: 'packages-not-to-tools',
    comment: 'Libraries under packages/ serve the tools, never the other way round.',
    severity: 'error',
    from: { path: '^packages/' },
    to: { path: '^tools/' },
  },
  {
    name: 'not-to-unresolvable',
    comment: 'An import the resolver cannot follow would hide its edges from the rules above.',
    severity: 'error',
    from: {},
    to: { couldNotResolve: true },
  },
];

export const options = {
  doNotFollow: { path: 'node_modules' },
  exclude: { path: '(^|/)(test|dist)/' },
  // Type-only imports count: they are dependencies of the design even though erased at run time.
  tsPreCompilationDeps: true,
  // npm packages' subpath exports (`@bufbuild/protobuf/wkt`), as Node and tsc (NodeNext) read them.
  enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'types', 'node', 'default'] },
};
