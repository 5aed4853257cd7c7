// The LambdaProvider against the one provider conformance suite, on a fresh fake Lambda
// Cloud per test (real HTTP on 127.0.0.1, real sshd nodes: needs root).
import { providerConformance } from '../helpers/provider-conformance';
import { startFakeLambda } from '../fakes/lambda';
import { fakeLambdaProvider } from '../helpers/lambda-core';
import { generateEd25519 } from '../../src-main/transport/keys';

providerConformance('lambda (fake Lambda Cloud)', async () => {
  const fake = await startFakeLambda();
  const { public: publicKey } = generateEd25519('tender-conformance');
  const make = () => fakeLambdaProvider(fake, () => publicKey);
  return {
    provider: make(),
    reopen: make,
    shape: { gpu: 'A10' },
    dispose: () => fake.stop(),
  };
});
