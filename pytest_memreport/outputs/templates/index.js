(function(){
var table=document.getElementById('reports'),body=table.tBodies[0];
var state=document.getElementById('state-filter'),repo=document.getElementById('repo-filter');
function apply(){var s=state.value,r=repo.value;Array.prototype.forEach.call(body.rows,function(row){
var ok=(!s||row.dataset.state===s)&&(!r||row.dataset.repos.split('\n').indexOf(r)>=0);
row.hidden=!ok;});}
var hash=new URLSearchParams(location.hash.slice(1));
if(hash.get('state'))state.value=hash.get('state');if(hash.get('repo'))repo.value=hash.get('repo');
state.onchange=apply;repo.onchange=apply;apply();
Array.prototype.forEach.call(table.tHead.rows[0].cells,function(cell){if(!cell.dataset.sort)return;
cell.onclick=function(){var key=cell.dataset.sort,rows=Array.prototype.slice.call(body.rows);
rows.sort(function(a,b){if(key==='path')return a.cells[0].textContent.localeCompare(b.cells[0].textContent);
if(key==='failing')return b.dataset.failing-a.dataset.failing;return a.dataset.rank-b.dataset.rank;});
rows.forEach(function(row){body.appendChild(row);});};});
})();