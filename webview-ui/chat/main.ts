import '../common/elements';
import './chat.css';
import { ChatApp } from './chat-app';

const root = document.getElementById('app');
if (!root) throw new Error('the chat webview needs a <div id="app"> element');
new ChatApp(root);
