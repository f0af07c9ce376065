// For tsc -p tsconfig.json (which type-checks test/ but not the renderer): single-file components are opaque there.
// vue-tsc (tsconfig.renderer.json) excludes this file and checks them for real.
declare module '*.vue' {
  import type { DefineComponent } from 'vue';
  const component: DefineComponent<object, object, unknown>;
  export default component;
}
