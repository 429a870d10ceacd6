/** Agent Reach SDK: the contract, AgentRuntime (agent side) and ReachClient (caller side). */
export * from './protocol/index.js';
