import '../common/elements';
import './manager.css';
import { ManagerApp } from './manager-app';

const root = document.getElementById('app');
if (!root) throw new Error('the Hook Manager webview needs a <div id="app"> element');
new ManagerApp(root);
