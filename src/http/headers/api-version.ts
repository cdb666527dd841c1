// Every response names the contract version that answered it (`API-Version`, the spec's
// `ApiVersion` header): a client can tell which contract it talks to without calling /ping.
import { loadSpec } from '../../spec.ts'

export const API_VERSION_HEADER = 'api-version'

export const apiVersion = () => loadSpec().info.version
