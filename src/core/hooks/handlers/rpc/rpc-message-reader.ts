import { ReadableStreamMessageReader, type DataCallback, type Disposable, type Message, type RAL } from 'vscode-jsonrpc/node';

/**
 * The host's reader from one server. Messages without a method (answers to the host's
 * requests, well formed or not) go to `onAnswer`, never to the connection: RpcServerProcess
 * matches answers to its requests itself. Requests and notifications go on to the connection.
 */
export class AnswerDivertingMessageReader extends ReadableStreamMessageReader {
  constructor(
    readable: RAL.ReadableStream,
    private readonly onAnswer: (message: Message) => void,
  ) {
    super(readable);
  }

  override listen(callback: DataCallback): Disposable {
    return super.listen((message) => {
      if (typeof message === 'object' && message !== null && !('method' in message)) this.onAnswer(message);
      else callback(message);
    });
  }
}
