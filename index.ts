// The package's entry (package.json `main` and `types`): the node and credential classes that n8n itself loads from
// the files listed in package.json#n8n, for code that imports the package.
export { OllangApi } from './credentials/OllangApi.credentials';
export { Ollang } from './nodes/Ollang/Ollang.node';
export { OllangTrigger } from './nodes/OllangTrigger/OllangTrigger.node';
export { OllangCallbackTrigger } from './nodes/OllangCallbackTrigger/OllangCallbackTrigger.node';
