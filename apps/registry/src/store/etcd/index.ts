/** The registry store on etcd. */
export { EtcdStore, type EtcdStoreOptions, openEtcdStore } from './etcd-store.js';
